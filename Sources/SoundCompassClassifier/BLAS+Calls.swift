import CBLAS

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Every OpenBLAS call of the classifier (Debian's libopenblas0, the CBLAS interface), through
// the library loaded with dlopen on first use: a process that never classifies neither maps it
// nor starts its threads.
enum BLAS {
    /// `cblas_sgemm`'s C type.
    typealias SGEMM = @convention(c) (
        CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint, blasint, blasint, Float, UnsafePointer<Float>?, blasint,
        UnsafePointer<Float>?, blasint, Float, UnsafeMutablePointer<Float>?, blasint
    ) -> Void

    /// The loaded library's functions.
    struct Functions: @unchecked Sendable {
        // @unchecked: a C function pointer, immutable once loaded.
        let sgemm: SGEMM
    }

    /// OpenBLAS, loaded once. Before loading, `OPENBLAS_NUM_THREADS` is set to 1 unless it is
    /// set already: the classifier's products are small, the analysis runs beside them, and a
    /// worker thread would not block the signals the command-line tool handles.
    static let functions: Result<Functions, ClassifierError> = {
        if getenv("OPENBLAS_NUM_THREADS") == nil { setenv("OPENBLAS_NUM_THREADS", "1", 1) }
        var message = ""
        for name in ["libopenblas.so.0", "libopenblas.so"] {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                message = dlerror().map { String(cString: $0) } ?? name
                continue
            }
            if let symbol = dlsym(handle, "cblas_sgemm") {
                return .success(Functions(sgemm: unsafeBitCast(symbol, to: SGEMM.self)))
            }
            message = "\(name) has no cblas_sgemm"
        }
        return .failure(.blasMissing(message))
    }()

    /// `C[m×n] = A[m×k] · B[n×k]ᵀ` (row-major; C overwritten). The pointwise convolution, the
    /// first convolution's im2col product and the dense layer are this.
    /// The corresponding C function is `cblas_sgemm`.
    static func multiplyTransposed(
        _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, into c: UnsafeMutablePointer<Float>, m: Int, n: Int, k: Int
    ) {
        guard case .success(let f) = functions else { preconditionFailure("OpenBLAS is not loaded") }
        f.sgemm(
            CblasRowMajor, CblasNoTrans, CblasTrans, blasint(m), blasint(n), blasint(k), 1, a, blasint(k), b,
            blasint(k), 0, c, blasint(n))
    }
}
