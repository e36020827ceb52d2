#ifndef SOUNDCOMPASS_CGEMM_H
#define SOUNDCOMPASS_CGEMM_H
// The classifier's matrix product and depthwise convolution (YAMNet's arithmetic), in C so that
// they can use the machine's vector units: each has an AVX-512, an AVX2+FMA and a portable
// version, one chosen at run time from CPUID (see gemm.c). Our own code; no library.
//
// Products are C[m][n] = act(A[m][k] · W[n][k]ᵀ + bias[n]), row-major, where W is packed once
// (sc_gemm_pack) into panels of SC_GEMM_PANEL output columns: panel j holds, for every p in
// 0..<k, the weights W[32j + 0...31][p] side by side (columns past n are zeros).
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Output columns per packed panel.
#define SC_GEMM_PANEL 32

/// The instruction sets a kernel can use.
typedef enum {
    SC_GEMM_PORTABLE = 0,  ///< plain C (whatever the compiler's baseline target vectorises)
    SC_GEMM_AVX2 = 1,      ///< AVX2 and FMA (x86-64)
    SC_GEMM_AVX512 = 2     ///< AVX-512 F (x86-64)
} sc_gemm_isa;

/// Floats of W's packed form: ceil(n / 32) · 32 · k.
size_t sc_gemm_packed_count(int n, int k);

/// Packs W[n][k] (row-major) into `packed` (sc_gemm_packed_count(n, k) floats, 64-byte aligned
/// for speed).
void sc_gemm_pack(const float *w, int n, int k, float *packed);

/// `count` floats for packed weights (uninitialised), aligned to 2 MB and, on Linux, marked for
/// transparent huge pages: streaming 15 MB of weights per forward pass then needs a few TLB
/// entries instead of thousands of 4 KB pages. NULL when memory is short. Free with sc_gemm_free.
float *sc_gemm_allocate(size_t count);

/// Frees what sc_gemm_allocate returned.
void sc_gemm_free(float *p);

/// C[m][n] = A[m][k] · Wᵀ + bias, then max(0, ·) when `relu` is non-zero. A row-major with row
/// stride k, C with row stride n; `bias` has n values (or is NULL for none). Allocates nothing.
void sc_gemm(const float *a, int m, int k, const float *packed, int n, const float *bias, int relu, float *c);

/// Depthwise 3×3 convolution, channel-last ([row][column][channel]), TensorFlow SAME padding
/// (stride 1: one zero on every side; stride 2 on even sizes: one at the bottom and right only),
/// then bias and ReLU. `kernel` is tap-major [9][channels] (tap = 3·ky + kx). Output is
/// (height/stride) × (width/stride) × channels. Allocates nothing.
void sc_depthwise3x3(const float *input, float *output, int height, int width, int channels, int stride,
                     const float *kernel, const float *bias);

/// The instruction set in use (the best the CPU and OS support, unless sc_gemm_use chose another).
sc_gemm_isa sc_gemm_current(void);

/// Uses `isa` from now on if the machine supports it (for tests comparing versions).
/// Returns 1 if it is now in use, 0 if unsupported (nothing changes).
int sc_gemm_use(sc_gemm_isa isa);

/// The best instruction set this machine supports.
sc_gemm_isa sc_gemm_best(void);

// MARK: - 8-bit products
//
// The same products with 8-bit operands and 32-bit integer sums: W quantised once per output
// column to signed 8 bits (scale: its largest magnitude / 127), A per row to unsigned 8 bits (A
// is non-negative: it comes out of a ReLU; scale: the row's largest value / 255), then
// C[i][j] = act(float(Σₚ Aq[i][p]·Wq[j][p]) · (rowScale[i] · columnScale[j]) + bias[j]), each
// operation rounded as written (no fused multiply-add), so every version gives the same C to
// the bit. k must be a multiple of 4. Packed panels: for each group of 4 inputs, the 32
// columns' 4 bytes side by side ([k/4][32][4]).

/// Bytes of W's packed 8-bit form: ceil(n / 32) · 32 · k.
size_t sc_gemm8_packed_count(int n, int k);

/// Quantises W[n][k] (row-major) per row of W (an output column of C) into `packed`
/// (sc_gemm8_packed_count(n, k) bytes, 64-byte aligned) and `scales` (n floats).
void sc_gemm8_pack(const float *w, int n, int k, signed char *packed, float *scales);

/// Quantises each row of A[m][k] (every value ≥ 0; negative ones read as 0) to unsigned 8 bits:
/// q = round(a / s) with s = the row's largest value / 255 (`scales[i]` = s; 0 for a row of zeros).
void sc_quantize_rows_u8(const float *a, int m, int k, unsigned char *q, float *scales);

/// C[m][n] from quantised A (row stride k, `rowScales` m values) and packed W (`columnScales` n
/// values), as above; C has row stride n; `bias` n values or NULL. Allocates nothing.
void sc_gemm8(const unsigned char *a, const float *rowScales, int m, int k, const signed char *packed,
              const float *columnScales, int n, const float *bias, int relu, float *c);

/// Whether sc_gemm8 runs on AVX-512 VNNI here (else portable C: the same results, slower).
int sc_gemm8_has_vnni(void);

/// Uses the portable version of sc_gemm8 (`portable` non-zero) or the best (0); for tests.
void sc_gemm8_use_portable(int portable);

#ifdef __cplusplus
}
#endif
#endif
