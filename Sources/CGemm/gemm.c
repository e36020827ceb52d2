// The classifier's matrix product and depthwise convolution (CGemm.h). Three versions of each:
// AVX-512 F, AVX2 + FMA and portable C, compiled side by side with clang's per-function
// `target` attribute (the package itself builds for baseline x86-64) and chosen once at run
// time from CPUID and XGETBV (the CPU has the instructions and the OS saves their registers).
//
// The product is a register-tiled kernel over weights packed at load (CGemm.h): a tile of MR rows
// of A × one 32-column panel of W is held in registers for the whole k loop, each A value
// broadcast once per row and each packed W row loaded once per tile; bias and ReLU are applied
// as the tile is stored. Panels go outermost, so a panel (k·32 floats, 128 KB at most) stays in
// L2 while every row tile passes over it.
#include "CGemm.h"

#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#define SC_X86 1
#endif

#define PANEL SC_GEMM_PANEL
#define ALWAYS_INLINE static inline __attribute__((always_inline))
/// Unrolls a loop of constant trip count (the tile's rows), so that its accumulators are registers.
#define UNROLL _Pragma("clang loop unroll(full)")

size_t sc_gemm_packed_count(int n, int k) {
    return (size_t)((n + PANEL - 1) / PANEL) * PANEL * (size_t)k;
}

void sc_gemm_pack(const float *w, int n, int k, float *packed) {
    int panels = (n + PANEL - 1) / PANEL;
    for (int j = 0; j < panels; j++) {
        float *dst = packed + (size_t)j * k * PANEL;
        // Blocks of 64 inputs: each W row is read in order, and the 64 panel rows written stay in L1.
        for (int p0 = 0; p0 < k; p0 += 64) {
            int p1 = p0 + 64 < k ? p0 + 64 : k;
            for (int c = 0; c < PANEL; c++) {
                int col = j * PANEL + c;
                const float *src = w + (size_t)col * k;
                for (int p = p0; p < p1; p++) dst[(size_t)p * PANEL + c] = col < n ? src[p] : 0.0f;
            }
        }
    }
}

float *sc_gemm_allocate(size_t count) {
    size_t huge = (size_t)2 << 20;
    size_t bytes = (count * sizeof(float) + huge - 1) / huge * huge;
    void *p = NULL;
    if (posix_memalign(&p, huge, bytes) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);  // advice only: without it, ordinary pages
#endif
    return (float *)p;
}

void sc_gemm_free(float *p) { free(p); }

// MARK: - Portable

/// Rows per tile of the portable kernel.
#define MR_PORTABLE 4

static void gemm_portable(const float *a, int m, int k, const float *packed, int n, const float *bias, int relu,
                          float *c) {
    int panels = (n + PANEL - 1) / PANEL;
    for (int j = 0; j < panels; j++) {
        const float *b = packed + (size_t)j * k * PANEL;
        int nc = n - j * PANEL < PANEL ? n - j * PANEL : PANEL;
        for (int i = 0; i < m; i += MR_PORTABLE) {
            int mr = m - i < MR_PORTABLE ? m - i : MR_PORTABLE;
            float acc[MR_PORTABLE][PANEL];
            memset(acc, 0, sizeof acc);
            for (int p = 0; p < k; p++) {
                const float *bp = b + (size_t)p * PANEL;
                for (int r = 0; r < mr; r++) {
                    float av = a[(size_t)(i + r) * k + p];
                    for (int q = 0; q < PANEL; q++) acc[r][q] += av * bp[q];
                }
            }
            for (int r = 0; r < mr; r++) {
                float *cr = c + (size_t)(i + r) * n + j * PANEL;
                for (int q = 0; q < nc; q++) {
                    float v = acc[r][q] + (bias ? bias[j * PANEL + q] : 0.0f);
                    cr[q] = relu && v < 0 ? 0.0f : v;
                }
            }
        }
    }
}

/// Sixteen floats as one value: a vector of whatever width the version's instruction set has
/// (one ZMM register, two YMM or four XMM).
typedef float vf16 __attribute__((vector_size(64)));

/// Unaligned loads and stores of a vf16 (macros rather than functions: a vf16 argument would
/// change the calling convention between versions).
#define LOAD16(v, p) memcpy(&(v), (p), sizeof(vf16))
#define STORE16(p, v) memcpy((p), &(v), sizeof(vf16))

/// The depthwise convolution's body, inlined into each version so that the compiler emits the
/// vector arithmetic for that version's instruction set. Per output position, 32 channels at a
/// time are summed over the nine taps in registers, then bias and ReLU; a channel count that is
/// not a multiple of 32 ends with a plain loop (YAMNet's are all multiples of 32).
ALWAYS_INLINE void depthwise_body(const float *restrict input, float *restrict output, int height, int width,
                                  int channels, int stride, const float *restrict kernel,
                                  const float *restrict bias) {
    int outH = stride == 2 ? height / 2 : height, outW = stride == 2 ? width / 2 : width;
    int pad = stride == 2 ? 0 : 1;
    int whole = channels - channels % 32;
    for (int oy = 0; oy < outH; oy++) {
        for (int ox = 0; ox < outW; ox++) {
            float *restrict o = output + ((size_t)oy * outW + ox) * channels;
            // The taps inside the input (SAME padding: the others read zeros).
            const float *taps[9];
            const float *tapKernels[9];
            int tapCount = 0;
            for (int ky = 0; ky < 3; ky++) {
                int y = oy * stride + ky - pad;
                if (y < 0 || y >= height) continue;
                for (int kx = 0; kx < 3; kx++) {
                    int x = ox * stride + kx - pad;
                    if (x < 0 || x >= width) continue;
                    taps[tapCount] = input + ((size_t)y * width + x) * channels;
                    tapKernels[tapCount] = kernel + (size_t)(3 * ky + kx) * channels;
                    tapCount++;
                }
            }
            for (int ch = 0; ch < whole; ch += 32) {
                vf16 acc0, acc1, x0, x1, k0, k1;
                LOAD16(acc0, bias + ch);
                LOAD16(acc1, bias + ch + 16);
                for (int t = 0; t < tapCount; t++) {
                    LOAD16(x0, taps[t] + ch);
                    LOAD16(x1, taps[t] + ch + 16);
                    LOAD16(k0, tapKernels[t] + ch);
                    LOAD16(k1, tapKernels[t] + ch + 16);
                    acc0 += x0 * k0;
                    acc1 += x1 * k1;
                }
                vf16 zero = {0};
                acc0 = __builtin_elementwise_max(acc0, zero);
                acc1 = __builtin_elementwise_max(acc1, zero);
                STORE16(o + ch, acc0);
                STORE16(o + ch + 16, acc1);
            }
            for (int ch = whole; ch < channels; ch++) {
                float acc = bias[ch];
                for (int t = 0; t < tapCount; t++) acc += taps[t][ch] * tapKernels[t][ch];
                o[ch] = acc < 0 ? 0.0f : acc;
            }
        }
    }
}

static void depthwise_portable(const float *input, float *output, int height, int width, int channels, int stride,
                               const float *kernel, const float *bias) {
    depthwise_body(input, output, height, width, channels, stride, kernel, bias);
}

#if SC_X86

// MARK: - AVX-512

#define AVX512 __attribute__((target("avx512f")))
/// Rows per tile: 12 rows × 2 vectors = 24 accumulators of the 32 registers.
#define MR_512 12

/// One tile: rows i..i+mr of A against one panel, stored with bias and ReLU. `mr` is a constant
/// at every call site, so the row loops unroll and the accumulators live in registers.
ALWAYS_INLINE AVX512 void tile512(const float *a, int k, const float *b, int mr, int nc, const float *bias,
                                  int relu, float *c, int ldc) {
    __m512 acc0[MR_512], acc1[MR_512];
    UNROLL for (int r = 0; r < mr; r++) { acc0[r] = _mm512_setzero_ps(); acc1[r] = _mm512_setzero_ps(); }
    for (int p = 0; p < k; p++) {
        __m512 b0 = _mm512_load_ps(b + (size_t)p * PANEL), b1 = _mm512_load_ps(b + (size_t)p * PANEL + 16);
        UNROLL for (int r = 0; r < mr; r++) {
            __m512 av = _mm512_set1_ps(a[(size_t)r * k + p]);
            acc0[r] = _mm512_fmadd_ps(av, b0, acc0[r]);
            acc1[r] = _mm512_fmadd_ps(av, b1, acc1[r]);
        }
    }
    __mmask16 m0 = nc >= 16 ? 0xFFFF : (__mmask16)((1u << nc) - 1);
    __mmask16 m1 = nc >= 32 ? 0xFFFF : nc > 16 ? (__mmask16)((1u << (nc - 16)) - 1) : 0;
    __m512 bias0 = bias ? _mm512_maskz_loadu_ps(m0, bias) : _mm512_setzero_ps();
    __m512 bias1 = bias ? _mm512_maskz_loadu_ps(m1, bias + 16) : _mm512_setzero_ps();
    __m512 zero = _mm512_setzero_ps();
    UNROLL for (int r = 0; r < mr; r++) {
        __m512 v0 = _mm512_add_ps(acc0[r], bias0), v1 = _mm512_add_ps(acc1[r], bias1);
        if (relu) { v0 = _mm512_max_ps(v0, zero); v1 = _mm512_max_ps(v1, zero); }
        _mm512_mask_storeu_ps(c + (size_t)r * ldc, m0, v0);
        _mm512_mask_storeu_ps(c + (size_t)r * ldc + 16, m1, v1);
    }
}

static AVX512 void gemm_avx512(const float *a, int m, int k, const float *packed, int n, const float *bias, int relu,
                               float *c) {
    int panels = (n + PANEL - 1) / PANEL;
    for (int j = 0; j < panels; j++) {
        const float *b = packed + (size_t)j * k * PANEL;
        int nc = n - j * PANEL < PANEL ? n - j * PANEL : PANEL;
        const float *bj = bias ? bias + j * PANEL : NULL;
        float *cj = c + j * PANEL;
        int i = 0;
        for (; i + MR_512 <= m; i += MR_512)
            tile512(a + (size_t)i * k, k, b, MR_512, nc, bj, relu, cj + (size_t)i * n, n);
        const float *ai = a + (size_t)i * k;
        float *ci = cj + (size_t)i * n;
        switch (m - i) {
        case 0: break;
        case 1: tile512(ai, k, b, 1, nc, bj, relu, ci, n); break;
        case 2: tile512(ai, k, b, 2, nc, bj, relu, ci, n); break;
        case 3: tile512(ai, k, b, 3, nc, bj, relu, ci, n); break;
        case 4: tile512(ai, k, b, 4, nc, bj, relu, ci, n); break;
        case 5: tile512(ai, k, b, 5, nc, bj, relu, ci, n); break;
        case 6: tile512(ai, k, b, 6, nc, bj, relu, ci, n); break;
        case 7: tile512(ai, k, b, 7, nc, bj, relu, ci, n); break;
        case 8: tile512(ai, k, b, 8, nc, bj, relu, ci, n); break;
        case 9: tile512(ai, k, b, 9, nc, bj, relu, ci, n); break;
        case 10: tile512(ai, k, b, 10, nc, bj, relu, ci, n); break;
        default: tile512(ai, k, b, 11, nc, bj, relu, ci, n); break;
        }
    }
}

static AVX512 void depthwise_avx512(const float *input, float *output, int height, int width, int channels,
                                    int stride, const float *kernel, const float *bias) {
    depthwise_body(input, output, height, width, channels, stride, kernel, bias);
}

// MARK: - AVX2 + FMA

#define AVX2 __attribute__((target("avx2,fma")))
/// Rows per tile: 6 rows × 2 vectors (half a panel) = 12 accumulators of the 16 registers.
#define MR_256 6

/// One tile of half a panel (16 columns from `b`, row stride 32 in the packed panel): rows
/// i..i+mr of A, `nc` of those 16 columns stored.
ALWAYS_INLINE AVX2 void tile256(const float *a, int k, const float *b, int mr, int nc, const float *bias, int relu,
                                float *c, int ldc) {
    __m256 acc0[MR_256], acc1[MR_256];
    UNROLL for (int r = 0; r < mr; r++) { acc0[r] = _mm256_setzero_ps(); acc1[r] = _mm256_setzero_ps(); }
    for (int p = 0; p < k; p++) {
        __m256 b0 = _mm256_load_ps(b + (size_t)p * PANEL), b1 = _mm256_load_ps(b + (size_t)p * PANEL + 8);
        UNROLL for (int r = 0; r < mr; r++) {
            __m256 av = _mm256_broadcast_ss(a + (size_t)r * k + p);
            acc0[r] = _mm256_fmadd_ps(av, b0, acc0[r]);
            acc1[r] = _mm256_fmadd_ps(av, b1, acc1[r]);
        }
    }
    // Bias for the columns that exist (zeros past them).
    float bv[16];
    for (int q = 0; q < 16; q++) bv[q] = bias && q < nc ? bias[q] : 0.0f;
    __m256 bias0 = _mm256_loadu_ps(bv), bias1 = _mm256_loadu_ps(bv + 8), zero = _mm256_setzero_ps();
    UNROLL for (int r = 0; r < mr; r++) {
        __m256 v0 = _mm256_add_ps(acc0[r], bias0), v1 = _mm256_add_ps(acc1[r], bias1);
        if (relu) { v0 = _mm256_max_ps(v0, zero); v1 = _mm256_max_ps(v1, zero); }
        if (nc == 16) {
            _mm256_storeu_ps(c + (size_t)r * ldc, v0);
            _mm256_storeu_ps(c + (size_t)r * ldc + 8, v1);
        } else {
            float row[16];
            _mm256_storeu_ps(row, v0);
            _mm256_storeu_ps(row + 8, v1);
            memcpy(c + (size_t)r * ldc, row, sizeof(float) * (size_t)nc);
        }
    }
}

static AVX2 void gemm_avx2(const float *a, int m, int k, const float *packed, int n, const float *bias, int relu,
                           float *c) {
    int panels = (n + PANEL - 1) / PANEL;
    for (int j = 0; j < panels; j++) {
        int nc = n - j * PANEL < PANEL ? n - j * PANEL : PANEL;
        for (int half = 0; half < 2 && 16 * half < nc; half++) {
            const float *b = packed + (size_t)j * k * PANEL + 16 * half;
            int hc = nc - 16 * half < 16 ? nc - 16 * half : 16;
            const float *bj = bias ? bias + j * PANEL + 16 * half : NULL;
            float *cj = c + j * PANEL + 16 * half;
            int i = 0;
            for (; i + MR_256 <= m; i += MR_256)
                tile256(a + (size_t)i * k, k, b, MR_256, hc, bj, relu, cj + (size_t)i * n, n);
            const float *ai = a + (size_t)i * k;
            float *ci = cj + (size_t)i * n;
            switch (m - i) {
            case 0: break;
            case 1: tile256(ai, k, b, 1, hc, bj, relu, ci, n); break;
            case 2: tile256(ai, k, b, 2, hc, bj, relu, ci, n); break;
            case 3: tile256(ai, k, b, 3, hc, bj, relu, ci, n); break;
            case 4: tile256(ai, k, b, 4, hc, bj, relu, ci, n); break;
            default: tile256(ai, k, b, 5, hc, bj, relu, ci, n); break;
            }
        }
    }
}

static AVX2 void depthwise_avx2(const float *input, float *output, int height, int width, int channels, int stride,
                                const float *kernel, const float *bias) {
    depthwise_body(input, output, height, width, channels, stride, kernel, bias);
}

#endif  // SC_X86

// MARK: - Choosing a version

sc_gemm_isa sc_gemm_best(void) {
#if SC_X86
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return SC_GEMM_PORTABLE;
    int osxsave = (ecx >> 27) & 1, avx = (ecx >> 28) & 1, fma = (ecx >> 12) & 1;
    if (!osxsave || !avx) return SC_GEMM_PORTABLE;
    unsigned xcr0, xcr0High;
    __asm__ volatile("xgetbv" : "=a"(xcr0), "=d"(xcr0High) : "c"(0));
    (void)xcr0High;
    if ((xcr0 & 0x6) != 0x6) return SC_GEMM_PORTABLE;  // SSE and AVX state
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return SC_GEMM_PORTABLE;
    int avx2 = (ebx >> 5) & 1, avx512f = (ebx >> 16) & 1;
    if (avx512f && (xcr0 & 0xE6) == 0xE6) return SC_GEMM_AVX512;  // plus opmask and ZMM state
    if (avx2 && fma) return SC_GEMM_AVX2;
#endif
    return SC_GEMM_PORTABLE;
}

/// The version in use; -1 until first asked.
static int chosen = -1;

sc_gemm_isa sc_gemm_current(void) {
    int isa = __atomic_load_n(&chosen, __ATOMIC_RELAXED);
    if (isa < 0) {
        isa = (int)sc_gemm_best();
        __atomic_store_n(&chosen, isa, __ATOMIC_RELAXED);
    }
    return (sc_gemm_isa)isa;
}

int sc_gemm_use(sc_gemm_isa isa) {
    if ((int)isa < 0 || isa > sc_gemm_best()) return 0;
    __atomic_store_n(&chosen, (int)isa, __ATOMIC_RELAXED);
    return 1;
}

void sc_gemm(const float *a, int m, int k, const float *packed, int n, const float *bias, int relu, float *c) {
    switch (sc_gemm_current()) {
#if SC_X86
    case SC_GEMM_AVX512: gemm_avx512(a, m, k, packed, n, bias, relu, c); return;
    case SC_GEMM_AVX2: gemm_avx2(a, m, k, packed, n, bias, relu, c); return;
#endif
    default: gemm_portable(a, m, k, packed, n, bias, relu, c); return;
    }
}

void sc_depthwise3x3(const float *input, float *output, int height, int width, int channels, int stride,
                     const float *kernel, const float *bias) {
    switch (sc_gemm_current()) {
#if SC_X86
    case SC_GEMM_AVX512: depthwise_avx512(input, output, height, width, channels, stride, kernel, bias); return;
    case SC_GEMM_AVX2: depthwise_avx2(input, output, height, width, channels, stride, kernel, bias); return;
#endif
    default: depthwise_portable(input, output, height, width, channels, stride, kernel, bias); return;
    }
}

// MARK: - 8-bit products (CGemm.h)

size_t sc_gemm8_packed_count(int n, int k) { return sc_gemm_packed_count(n, k); }

void sc_gemm8_pack(const float *w, int n, int k, signed char *packed, float *scales) {
    int panels = (n + PANEL - 1) / PANEL;
    for (int col = 0; col < n; col++) {
        const float *src = w + (size_t)col * k;
        float largest = 0;
        for (int p = 0; p < k; p++) {
            float m = src[p] < 0 ? -src[p] : src[p];
            if (m > largest) largest = m;
        }
        scales[col] = largest / 127.0f;
    }
    // A column quantised in chunks, in order (a loop the compiler vectorises), each chunk laid
    // into its panel four bytes at a time.
    enum { CHUNK = 256 };
    signed char chunk[CHUNK];
    for (int j = 0; j < panels; j++) {
        signed char *dst = packed + (size_t)j * k * PANEL;
        for (int c = 0; c < PANEL; c++) {
            int col = j * PANEL + c;
            float inverse = col < n && scales[col] > 0 ? 1.0f / scales[col] : 0.0f;
            for (int p0 = 0; p0 < k; p0 += CHUNK) {
                int count = k - p0 < CHUNK ? k - p0 : CHUNK;
                if (col < n) {
                    const float *src = w + (size_t)col * k + p0;
                    for (int p = 0; p < count; p++) {
                        float x = src[p] * inverse;
                        x = x + (x < 0 ? -0.5f : 0.5f);
                        int q = (int)x;
                        chunk[p] = (signed char)(q > 127 ? 127 : q < -127 ? -127 : q);
                    }
                } else {
                    memset(chunk, 0, (size_t)count);
                }
                for (int g = 0; g < count / 4; g++)
                    memcpy(dst + (size_t)(p0 / 4 + g) * PANEL * 4 + c * 4, chunk + 4 * g, 4);
            }
        }
    }
}

/// One activation in 8 bits: max(x, 0) · inverse + 0.5, truncated, at most 255 (each operation
/// rounded as written: the vector version does the same).
static inline unsigned char quantize_one(float x, float inverse) {
    x = x > 0 ? x : 0.0f;
    x = x * inverse;
    x = x + 0.5f;
    int v = (int)x;
    return (unsigned char)(v > 255 ? 255 : v);
}

static void quantize_portable(const float *a, int m, int k, unsigned char *q, float *scales) {
    for (int i = 0; i < m; i++) {
        const float *row = a + (size_t)i * k;
        unsigned char *out = q + (size_t)i * k;
        float largest = 0;
        for (int p = 0; p < k; p++) largest = row[p] > largest ? row[p] : largest;
        float inverse = largest > 0 ? 255.0f / largest : 0.0f;
        scales[i] = largest / 255.0f;
        for (int p = 0; p < k; p++) out[p] = quantize_one(row[p], inverse);
    }
}

/// The epilogue shared by every version: float(sum) · (rowScale · columnScale) + bias, then ReLU.
static inline float gemm8_value(int sum, float rowScale, float columnScale, float bias, int relu) {
    float scale = rowScale * columnScale;
    float v = (float)sum * scale;
    v = v + bias;
    return relu && v < 0 ? 0.0f : v;
}

static void gemm8_portable(const unsigned char *a, const float *rowScales, int m, int k, const signed char *packed,
                           const float *columnScales, int n, const float *bias, int relu, float *c) {
    int panels = (n + PANEL - 1) / PANEL;
    for (int j = 0; j < panels; j++) {
        const signed char *b = packed + (size_t)j * k * PANEL;
        int nc = n - j * PANEL < PANEL ? n - j * PANEL : PANEL;
        for (int i = 0; i < m; i++) {
            int acc[PANEL];
            memset(acc, 0, sizeof acc);
            const unsigned char *ar = a + (size_t)i * k;
            for (int g = 0; g < k / 4; g++) {
                const signed char *bg = b + (size_t)g * PANEL * 4;
                for (int q = 0; q < PANEL; q++) {
                    int s = 0;
                    for (int t = 0; t < 4; t++) s += (int)ar[4 * g + t] * (int)bg[4 * q + t];
                    acc[q] += s;
                }
            }
            float *cr = c + (size_t)i * n + j * PANEL;
            for (int q = 0; q < nc; q++)
                cr[q] = gemm8_value(acc[q], rowScales[i], columnScales[j * PANEL + q], bias ? bias[j * PANEL + q] : 0.0f, relu);
        }
    }
}

#if SC_X86
#define VNNI __attribute__((target("avx512f,avx512vnni")))

/// One tile: rows i..i+mr of quantised A against one packed panel, 24 int32 accumulators; the
/// epilogue as gemm8_value, lane by lane (multiply, then add: no FMA).
ALWAYS_INLINE VNNI void tile8(const unsigned char *a, const float *rowScales, int k, const signed char *b, int mr,
                              int nc, const float *columnScales, const float *bias, int relu, float *c, int ldc) {
    __m512i acc0[MR_512], acc1[MR_512];
    UNROLL for (int r = 0; r < mr; r++) { acc0[r] = _mm512_setzero_si512(); acc1[r] = _mm512_setzero_si512(); }
    for (int g = 0; g < k / 4; g++) {
        __m512i b0 = _mm512_load_si512((const void *)(b + (size_t)g * PANEL * 4));
        __m512i b1 = _mm512_load_si512((const void *)(b + (size_t)g * PANEL * 4 + 64));
        UNROLL for (int r = 0; r < mr; r++) {
            int word;
            memcpy(&word, a + (size_t)r * k + 4 * g, 4);
            __m512i av = _mm512_set1_epi32(word);
            acc0[r] = _mm512_dpbusd_epi32(acc0[r], av, b0);
            acc1[r] = _mm512_dpbusd_epi32(acc1[r], av, b1);
        }
    }
    __mmask16 m0 = nc >= 16 ? 0xFFFF : (__mmask16)((1u << nc) - 1);
    __mmask16 m1 = nc >= 32 ? 0xFFFF : nc > 16 ? (__mmask16)((1u << (nc - 16)) - 1) : 0;
    __m512 cs0 = _mm512_maskz_loadu_ps(m0, columnScales), cs1 = _mm512_maskz_loadu_ps(m1, columnScales + 16);
    __m512 bias0 = bias ? _mm512_maskz_loadu_ps(m0, bias) : _mm512_setzero_ps();
    __m512 bias1 = bias ? _mm512_maskz_loadu_ps(m1, bias + 16) : _mm512_setzero_ps();
    __m512 zero = _mm512_setzero_ps();
    UNROLL for (int r = 0; r < mr; r++) {
        __m512 rs = _mm512_set1_ps(rowScales[r]);
        __m512 v0 = _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(acc0[r]), _mm512_mul_ps(rs, cs0)), bias0);
        __m512 v1 = _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(acc1[r]), _mm512_mul_ps(rs, cs1)), bias1);
        if (relu) { v0 = _mm512_max_ps(v0, zero); v1 = _mm512_max_ps(v1, zero); }
        _mm512_mask_storeu_ps(c + (size_t)r * ldc, m0, v0);
        _mm512_mask_storeu_ps(c + (size_t)r * ldc + 16, m1, v1);
    }
}

static VNNI void gemm8_vnni(const unsigned char *a, const float *rowScales, int m, int k, const signed char *packed,
                            const float *columnScales, int n, const float *bias, int relu, float *c) {
    int panels = (n + PANEL - 1) / PANEL;
    for (int j = 0; j < panels; j++) {
        const signed char *b = packed + (size_t)j * k * PANEL;
        int nc = n - j * PANEL < PANEL ? n - j * PANEL : PANEL;
        const float *cs = columnScales + j * PANEL;
        const float *bj = bias ? bias + j * PANEL : NULL;
        float *cj = c + j * PANEL;
        int i = 0;
        for (; i + MR_512 <= m; i += MR_512)
            tile8(a + (size_t)i * k, rowScales + i, k, b, MR_512, nc, cs, bj, relu, cj + (size_t)i * n, n);
        const unsigned char *ai = a + (size_t)i * k;
        const float *ri = rowScales + i;
        float *ci = cj + (size_t)i * n;
        switch (m - i) {
        case 0: break;
        case 1: tile8(ai, ri, k, b, 1, nc, cs, bj, relu, ci, n); break;
        case 2: tile8(ai, ri, k, b, 2, nc, cs, bj, relu, ci, n); break;
        case 3: tile8(ai, ri, k, b, 3, nc, cs, bj, relu, ci, n); break;
        case 4: tile8(ai, ri, k, b, 4, nc, cs, bj, relu, ci, n); break;
        case 5: tile8(ai, ri, k, b, 5, nc, cs, bj, relu, ci, n); break;
        case 6: tile8(ai, ri, k, b, 6, nc, cs, bj, relu, ci, n); break;
        case 7: tile8(ai, ri, k, b, 7, nc, cs, bj, relu, ci, n); break;
        case 8: tile8(ai, ri, k, b, 8, nc, cs, bj, relu, ci, n); break;
        case 9: tile8(ai, ri, k, b, 9, nc, cs, bj, relu, ci, n); break;
        case 10: tile8(ai, ri, k, b, 10, nc, cs, bj, relu, ci, n); break;
        default: tile8(ai, ri, k, b, 11, nc, cs, bj, relu, ci, n); break;
        }
    }
}
/// sc_quantize_rows_u8 sixteen values at a time, with the portable version's operations (the
/// largest value, then max(a, 0) · inverse + 0.5 truncated, no FMA): the same bytes.
static VNNI void quantize_avx512(const float *a, int m, int k, unsigned char *q, float *scales) {
    int whole = k - k % 16;
    for (int i = 0; i < m; i++) {
        const float *row = a + (size_t)i * k;
        unsigned char *out = q + (size_t)i * k;
        __m512 top = _mm512_setzero_ps();
        for (int p = 0; p < whole; p += 16) top = _mm512_max_ps(top, _mm512_loadu_ps(row + p));
        float largest = _mm512_reduce_max_ps(top);
        for (int p = whole; p < k; p++) largest = row[p] > largest ? row[p] : largest;
        float inverse = largest > 0 ? 255.0f / largest : 0.0f;
        scales[i] = largest / 255.0f;
        __m512 inv = _mm512_set1_ps(inverse), half = _mm512_set1_ps(0.5f), zero = _mm512_setzero_ps();
        for (int p = 0; p < whole; p += 16) {
            __m512 x = _mm512_add_ps(_mm512_mul_ps(_mm512_max_ps(_mm512_loadu_ps(row + p), zero), inv), half);
            _mm_storeu_si128((__m128i *)(out + p), _mm512_cvtusepi32_epi8(_mm512_cvttps_epi32(x)));
        }
        for (int p = whole; p < k; p++) out[p] = quantize_one(row[p], inverse);
    }
}
#endif  // SC_X86

int sc_gemm8_has_vnni(void) {
#if SC_X86
    if (sc_gemm_best() != SC_GEMM_AVX512) return 0;
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    return (int)((ecx >> 11) & 1);  // AVX512_VNNI
#else
    return 0;
#endif
}

/// 1: the portable version forced (tests); 0: the best.
static int gemm8Portable = 0;

void sc_gemm8_use_portable(int portable) { __atomic_store_n(&gemm8Portable, portable != 0, __ATOMIC_RELAXED); }

/// Whether the AVX-512 VNNI versions run: the CPU has them and the portable ones are not forced.
static int gemm8_fast(void) {
    static int vnni = -1;
    int has = __atomic_load_n(&vnni, __ATOMIC_RELAXED);
    if (has < 0) {
        has = sc_gemm8_has_vnni();
        __atomic_store_n(&vnni, has, __ATOMIC_RELAXED);
    }
    return has && !__atomic_load_n(&gemm8Portable, __ATOMIC_RELAXED);
}

void sc_quantize_rows_u8(const float *a, int m, int k, unsigned char *q, float *scales) {
#if SC_X86
    if (gemm8_fast()) {
        quantize_avx512(a, m, k, q, scales);
        return;
    }
#endif
    quantize_portable(a, m, k, q, scales);
}

void sc_gemm8(const unsigned char *a, const float *rowScales, int m, int k, const signed char *packed,
              const float *columnScales, int n, const float *bias, int relu, float *c) {
#if SC_X86
    if (gemm8_fast()) {
        gemm8_vnni(a, rowScales, m, k, packed, columnScales, n, bias, relu, c);
        return;
    }
#endif
    gemm8_portable(a, rowScales, m, k, packed, columnScales, n, bias, relu, c);
}
