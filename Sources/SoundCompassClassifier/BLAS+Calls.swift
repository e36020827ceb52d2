import CBLAS

// Every OpenBLAS call of the classifier (Debian's libopenblas-dev, CBLAS interface).
enum BLAS {
    /// `C[m×n] = A[m×k] · B[n×k]ᵀ` (row-major; C overwritten). The pointwise convolution and the
    /// first convolution's im2col product are this.
    /// The corresponding C function is `cblas_sgemm`.
    static func multiplyTransposed(
        _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, into c: UnsafeMutablePointer<Float>, m: Int, n: Int, k: Int
    ) {
        cblas_sgemm(
            CblasRowMajor, CblasNoTrans, CblasTrans, blasint(m), blasint(n), blasint(k), 1, a, blasint(k), b,
            blasint(k), 0, c, blasint(n))
    }

    /// One OpenBLAS thread, unless `OPENBLAS_NUM_THREADS` says otherwise: the classifier's
    /// products are small and the analysis runs beside them.
    /// The corresponding C function is `openblas_set_num_threads`.
    static func useOneThreadUnlessTold() {
        if YAMNetWeights.environment("OPENBLAS_NUM_THREADS") == nil { openblas_set_num_threads(1) }
    }
}
