/* The plain references bench/flow.mjs measures @peclet/flow against, on the same threads:
 *
 *   reference-<prec> lbm <n> <threads> <steps>   a plain D3Q19 BGK kernel on a periodic n³ box
 *   reference-<prec> triad <megabytes> <threads> a STREAM triad a[i] = b[i] + s·c[i] (double)
 *   reference-<prec> check                       correctness: shear-wave decay along x, y and z,
 *                                                mass and body-force momentum on a small box
 *
 * Each prints one JSON line. Built twice by `make reference` (Makefile): build/reference-f64
 * (-DREAL=double) and build/reference-f32 (-DREAL=float), with gcc -O3 -march=native -fopenmp.
 *
 * The kernel is what a competent engineer writes plainly, nothing more: structure of arrays
 * (f[q][node], node = (i·n + j)·n + k), two lattices swapped each step, pull streaming, BGK with
 * the standard equilibrium and the body force as a velocity shift (u_eq = (j + τF)/ρ: each step
 * adds exactly F to every node's momentum), the 19 directions written out, one
 * `#pragma omp parallel for collapse(2)` over the rows (i, j) with the k loop contiguous (its two
 * end nodes peeled off for the periodic wrap, so the loop between them vectorizes). No AA
 * pattern, no non-temporal stores, no blocking, no prefetch; the one care taken is that the 38
 * arrays do not start at the same offset in a 4 KiB page (see make()).
 *
 * Bytes per update: the kernel's minimum is 2·19·sizeof(real) (each population read once and
 * written once); with the write-allocate a cached store pays (the line of the other lattice is
 * read before it is written) it is 3·19·sizeof(real). The triad moves 24 bytes per element by
 * STREAM's count, 32 with its write-allocate; both bandwidths are printed. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifndef REAL
#define REAL double
#endif
typedef REAL real;
#define Q 19
#define PRECISION (sizeof(real) == 4 ? "f32" : "f64")

/* D3Q19: rest, the 6 axes, the 12 edge diagonals. */
static const int CX[Q] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
static const int CY[Q] = {0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1};
static const int CZ[Q] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1};
static const double W[Q] = {1. / 3,  1. / 18, 1. / 18, 1. / 18, 1. / 18, 1. / 18, 1. / 18,
                            1. / 36, 1. / 36, 1. / 36, 1. / 36, 1. / 36, 1. / 36, 1. / 36,
                            1. / 36, 1. / 36, 1. / 36, 1. / 36, 1. / 36};

typedef struct {
  real omega, tfx, tfy, tfz; /* 1/τ and τ·F */
} Params;

/* The equilibrium of a pair of opposite directions ±c (cu = c·u), written into a and b. */
#define PAIR(a, b, w, cu)                                                          \
  do {                                                                             \
    const real cu_ = (cu), even_ = (w) * rho * (1 + (real)4.5 * cu_ * cu_ - usq); \
    const real odd_ = (w) * rho * 3 * cu_;                                         \
    a = even_ + odd_;                                                              \
    b = even_ - odd_;                                                              \
  } while (0)

/* Pull the 19 populations of node k of the row (k−1 and k+1 with the periodic wrap: km, kp),
 * collide, write them to the other lattice. */
#define NODE(k, km, kp)                                                                            \
  do {                                                                                             \
    const real f0 = s0[k], f1 = s1[k], f2 = s2[k], f3 = s3[k], f4 = s4[k], f5 = s5[km], f6 = s6[kp]; \
    const real f7 = s7[k], f8 = s8[k], f9 = s9[k], f10 = s10[k], f11 = s11[km], f12 = s12[kp];      \
    const real f13 = s13[kp], f14 = s14[km], f15 = s15[km], f16 = s16[kp], f17 = s17[kp];           \
    const real f18 = s18[km];                                                                      \
    const real rho = f0 + f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8 + f9 + f10 + f11 + f12 + f13 + f14 + \
                     f15 + f16 + f17 + f18;                                                        \
    const real jx = f1 - f2 + f7 - f8 + f9 - f10 + f11 - f12 + f13 - f14;                          \
    const real jy = f3 - f4 + f7 - f8 - f9 + f10 + f15 - f16 + f17 - f18;                          \
    const real jz = f5 - f6 + f11 - f12 - f13 + f14 + f15 - f16 - f17 + f18;                       \
    const real inv = 1 / rho;                                                                      \
    const real ux = (jx + p.tfx) * inv, uy = (jy + p.tfy) * inv, uz = (jz + p.tfz) * inv;          \
    const real usq = (real)1.5 * (ux * ux + uy * uy + uz * uz);                                    \
    const real w0 = (real)(1. / 3), w1 = (real)(1. / 18), w2 = (real)(1. / 36);                    \
    real e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15, e16, e17, e18;      \
    e0 = w0 * rho * (1 - usq);                                                                     \
    PAIR(e1, e2, w1, ux);                                                                          \
    PAIR(e3, e4, w1, uy);                                                                          \
    PAIR(e5, e6, w1, uz);                                                                          \
    PAIR(e7, e8, w2, ux + uy);                                                                     \
    PAIR(e9, e10, w2, ux - uy);                                                                    \
    PAIR(e11, e12, w2, ux + uz);                                                                   \
    PAIR(e13, e14, w2, ux - uz);                                                                   \
    PAIR(e15, e16, w2, uy + uz);                                                                   \
    PAIR(e17, e18, w2, uy - uz);                                                                   \
    d0[k] = f0 + p.omega * (e0 - f0);                                                              \
    d1[k] = f1 + p.omega * (e1 - f1);                                                              \
    d2[k] = f2 + p.omega * (e2 - f2);                                                              \
    d3[k] = f3 + p.omega * (e3 - f3);                                                              \
    d4[k] = f4 + p.omega * (e4 - f4);                                                              \
    d5[k] = f5 + p.omega * (e5 - f5);                                                              \
    d6[k] = f6 + p.omega * (e6 - f6);                                                              \
    d7[k] = f7 + p.omega * (e7 - f7);                                                              \
    d8[k] = f8 + p.omega * (e8 - f8);                                                              \
    d9[k] = f9 + p.omega * (e9 - f9);                                                              \
    d10[k] = f10 + p.omega * (e10 - f10);                                                          \
    d11[k] = f11 + p.omega * (e11 - f11);                                                          \
    d12[k] = f12 + p.omega * (e12 - f12);                                                          \
    d13[k] = f13 + p.omega * (e13 - f13);                                                          \
    d14[k] = f14 + p.omega * (e14 - f14);                                                          \
    d15[k] = f15 + p.omega * (e15 - f15);                                                          \
    d16[k] = f16 + p.omega * (e16 - f16);                                                          \
    d17[k] = f17 + p.omega * (e17 - f17);                                                          \
    d18[k] = f18 + p.omega * (e18 - f18);                                                          \
  } while (0)

/* One row: s<q> are the rows the populations are pulled from (row (i − cx, j − cy)), d<q> the
 * row (i, j) of the other lattice. */
static void row(long n, Params p, const real *restrict s0, const real *restrict s1,
                const real *restrict s2, const real *restrict s3, const real *restrict s4,
                const real *restrict s5, const real *restrict s6, const real *restrict s7,
                const real *restrict s8, const real *restrict s9, const real *restrict s10,
                const real *restrict s11, const real *restrict s12, const real *restrict s13,
                const real *restrict s14, const real *restrict s15, const real *restrict s16,
                const real *restrict s17, const real *restrict s18, real *restrict d0,
                real *restrict d1, real *restrict d2, real *restrict d3, real *restrict d4,
                real *restrict d5, real *restrict d6, real *restrict d7, real *restrict d8,
                real *restrict d9, real *restrict d10, real *restrict d11, real *restrict d12,
                real *restrict d13, real *restrict d14, real *restrict d15, real *restrict d16,
                real *restrict d17, real *restrict d18) {
  NODE(0, n - 1, 1);
  for (long k = 1; k < n - 1; k++) NODE(k, k - 1, k + 1);
  NODE(n - 1, n - 2, 0);
}

static void step(long n, Params p, real *const f[Q], real *const g[Q]) {
#pragma omp parallel for collapse(2) schedule(static)
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++) {
      const real *s[Q];
      for (int q = 0; q < Q; q++)
        s[q] = f[q] + (((i - CX[q] + n) % n) * n + (j - CY[q] + n) % n) * n;
      const long r = (i * n + j) * n;
      row(n, p, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10], s[11], s[12],
          s[13], s[14], s[15], s[16], s[17], s[18], g[0] + r, g[1] + r, g[2] + r, g[3] + r,
          g[4] + r, g[5] + r, g[6] + r, g[7] + r, g[8] + r, g[9] + r, g[10] + r, g[11] + r,
          g[12] + r, g[13] + r, g[14] + r, g[15] + r, g[16] + r, g[17] + r, g[18] + r);
    }
}

typedef struct {
  long n, N;
  real *data; /* both lattices: 2·Q·N */
  real *f[Q], *g[Q];
} Lattice;

/* Allocates both lattices and first-touches them with the step's schedule, each node set to the
 * equilibrium of density 1 and velocity u(i, j, k) (NULL: at rest). */
typedef void (*Velocity)(long n, long i, long j, long k, double u[3]);

/* The lattices' memory, on 64-byte lines; with REFERENCE_HUGE_PAGES=1 on 2 MiB transparent huge
 * pages (madvise), to show what the page size alone is worth beside a kernel that uses them. */
static void *allocate(size_t bytes) {
  const char *huge = getenv("REFERENCE_HUGE_PAGES");
  if (huge != NULL && strcmp(huge, "1") == 0) {
    const size_t page = (size_t)2 << 20;
    bytes = (bytes + page - 1) / page * page;
    void *p = aligned_alloc(page, bytes);
#ifdef MADV_HUGEPAGE
    if (p != NULL) madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
  }
  return aligned_alloc(64, (bytes + 63) / 64 * 64);
}

static Lattice make(long n, Velocity velocity) {
  Lattice L;
  L.n = n;
  L.N = n * n * n;
  /* Each of the 38 arrays starts one cache line further into a 4 KiB page than the one before:
   * at n³ (a multiple of 4 KiB) apart, the 38 streams of a row would fall in the same L1 sets
   * (and alias in 4 KiB to the store buffer): 20 to 30% slower at 256³. */
  const long line = 64 / sizeof(real), stride = (L.N + line - 1) / line * line + line;
  L.data = allocate(2 * Q * stride * sizeof(real));
  if (!L.data) {
    fprintf(stderr, "reference: out of memory\n");
    exit(1);
  }
  for (int q = 0; q < Q; q++) L.f[q] = L.data + q * stride, L.g[q] = L.data + (Q + q) * stride;
#pragma omp parallel for collapse(2) schedule(static)
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++)
      for (long k = 0; k < n; k++) {
        double u[3] = {0, 0, 0};
        if (velocity) velocity(n, i, j, k, u);
        const double usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
        const long v = (i * n + j) * n + k;
        for (int q = 0; q < Q; q++) {
          const double cu = CX[q] * u[0] + CY[q] * u[1] + CZ[q] * u[2];
          L.f[q][v] = L.g[q][v] = (real)(W[q] * (1 + 3 * cu + 4.5 * cu * cu - 1.5 * usq));
        }
      }
  return L;
}

static void advance(Lattice *L, Params p, long steps) {
  for (long t = 0; t < steps; t++) {
    step(L->n, p, L->f, L->g);
    for (int q = 0; q < Q; q++) {
      real *x = L->f[q];
      L->f[q] = L->g[q];
      L->g[q] = x;
    }
  }
}

/* Mass, momentum and Σ (q + 1)·f over the box, in double, summed row by row (accurate to
 * round-off and the same on any number of threads). */
static void moments(const Lattice *L, double m[5]) {
  const long n = L->n, rows = n * n;
  double *sums = calloc(5 * rows, sizeof(double));
#pragma omp parallel for schedule(static)
  for (long r = 0; r < rows; r++) {
    double *s = sums + 5 * r;
    for (long v = r * n; v < (r + 1) * n; v++)
      for (int q = 0; q < Q; q++) {
        const double x = L->f[q][v];
        s[0] += x, s[1] += CX[q] * x, s[2] += CY[q] * x, s[3] += CZ[q] * x, s[4] += (q + 1) * x;
      }
  }
  for (int c = 0; c < 5; c++) m[c] = 0;
  for (long r = 0; r < rows; r++)
    for (int c = 0; c < 5; c++) m[c] += sums[5 * r + c];
  free(sums);
}

static Params params(double tau, double fx, double fy, double fz) {
  Params p = {(real)(1 / tau), (real)(tau * fx), (real)(tau * fy), (real)(tau * fz)};
  return p;
}

static void lbm(long n, int threads, long steps) {
  omp_set_num_threads(threads);
  const double force = 1e-6, tau = 0.8;
  const Params p = params(tau, force, 0, 0);
  Lattice L = make(n, NULL);
  double before[5], after[5];
  moments(&L, before);
  advance(&L, p, 1); /* warm-up */
  const double start = omp_get_wtime();
  advance(&L, p, steps);
  const double seconds = omp_get_wtime() - start;
  moments(&L, after);
  const double N = (double)L.N, mlups = N * steps / seconds / 1e6;
  const double minimum = 2.0 * Q * sizeof(real), writeAllocate = 3.0 * Q * sizeof(real);
  /* Momentum gained over steps + 1 steps against N·F·(steps + 1): the body force's rate. */
  printf(
      "{\"kind\":\"lbm\",\"precision\":\"%s\",\"n\":%ld,\"threads\":%d,\"steps\":%ld,\"seconds\":%.6f,"
      "\"mlups\":%.4f,\"bytesPerUpdate\":%.0f,\"bytesPerUpdateWriteAllocate\":%.0f,"
      "\"bandwidth\":%.6e,\"bandwidthWriteAllocate\":%.6e,\"massDrift\":%.3e,\"acceleration\":%.6f,"
      "\"checksum\":%.12e}\n",
      PRECISION, n, threads, steps, seconds, mlups, minimum, writeAllocate, mlups * 1e6 * minimum,
      mlups * 1e6 * writeAllocate, (after[0] - before[0]) / before[0],
      (after[1] - before[1]) / (N * force * (steps + 1)), after[4]);
  free(L.data);
}

static void triad(double megabytes, int threads) {
  omp_set_num_threads(threads);
  const long n = (long)(megabytes * 1e6 / 24);
  double *a = aligned_alloc(64, (n * sizeof(double) + 63) / 64 * 64);
  double *b = aligned_alloc(64, (n * sizeof(double) + 63) / 64 * 64);
  double *c = aligned_alloc(64, (n * sizeof(double) + 63) / 64 * 64);
  if (!a || !b || !c) {
    fprintf(stderr, "reference: out of memory\n");
    exit(1);
  }
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) a[i] = 0, b[i] = 1, c[i] = 2;
  const double s = 3;
  double best = 1e30;
  for (int repeat = 0; repeat < 10; repeat++) {
    const double start = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
    const double seconds = omp_get_wtime() - start;
    if (seconds < best) best = seconds;
  }
  double checksum = 0;
#pragma omp parallel for reduction(+ : checksum) schedule(static)
  for (long i = 0; i < n; i++) checksum += a[i];
  printf(
      "{\"kind\":\"triad\",\"threads\":%d,\"elements\":%ld,\"megabytes\":%.0f,\"seconds\":%.6f,"
      "\"bytesPerElement\":24,\"bytesPerElementWriteAllocate\":32,\"bandwidth\":%.6e,"
      "\"bandwidthWriteAllocate\":%.6e,\"checksum\":%.12e}\n",
      threads, n, 24.0 * n / 1e6, best, 24.0 * n / best, 32.0 * n / best, checksum / n);
  free(a), free(b), free(c);
}

/* A shear wave u_axis(along) = A·sin(2π x_along / n) decays as exp(−ν k² t), ν = (τ − ½)/3. */
static int shearAxis, shearAlong;
static void shearWave(long n, long i, long j, long k, double u[3]) {
  const long x[3] = {i, j, k};
  u[shearAxis] = 1e-3 * sin(2 * M_PI * x[shearAlong] / n);
}

static int check(void) {
  const long n = 32, steps = 200;
  const double tau = 0.8, nu = (tau - 0.5) / 3, kw = 2 * M_PI / n;
  /* The shear wave's amplitude after 200 steps is 0.4% below exp(−ν k² t) at this resolution
   * (0.26% in the first step, from starting at equilibrium, and a decay rate 0.2% faster at
   * k = 2π/32: the scheme's own O(k²) error); a wrong streaming direction or relaxation time
   * is off by far more. The body force adds exactly F per node per step to the momentum:
   * there the tolerance is round-off. The mass is summed in double; its drift is round-off. */
  const double shearTolerance = 1e-2, forceTolerance = sizeof(real) == 4 ? 1e-3 : 1e-9;
  const double massTolerance = sizeof(real) == 4 ? 1e-4 : 1e-12;
  int ok = 1;
  printf("{\"kind\":\"check\",\"precision\":\"%s\",\"shearWaves\":[", PRECISION);
  const int axes[3][2] = {{0, 1}, {1, 2}, {2, 0}}; /* u_x(y), u_y(z), u_z(x) */
  for (int a = 0; a < 3; a++) {
    shearAxis = axes[a][0], shearAlong = axes[a][1];
    Lattice L = make(n, shearWave);
    advance(&L, params(tau, 0, 0, 0), steps);
    /* Amplitude: projection of the velocity on the sine (the physical velocity: no force). */
    double projection = 0;
    for (long i = 0; i < n; i++)
      for (long j = 0; j < n; j++)
        for (long k = 0; k < n; k++) {
          const long v = (i * n + j) * n + k, x[3] = {i, j, k};
          double rho = 0, jv = 0;
          const int *c = shearAxis == 0 ? CX : shearAxis == 1 ? CY : CZ;
          for (int q = 0; q < Q; q++) rho += L.f[q][v], jv += c[q] * (double)L.f[q][v];
          projection += jv / rho * sin(2 * M_PI * x[shearAlong] / n);
        }
    const double amplitude = projection * 2 / (double)L.N;
    const double expected = 1e-3 * exp(-nu * kw * kw * steps);
    const double error = fabs(amplitude / expected - 1);
    ok &= error < shearTolerance;
    printf("%s{\"axis\":%d,\"along\":%d,\"ratio\":%.6f}", a ? "," : "", shearAxis, shearAlong,
           amplitude / expected);
    free(L.data);
  }
  /* Mass and the body force's rate on a uniform box (force large enough for f32's round-off). */
  const double force = 1e-5;
  Lattice L = make(n, NULL);
  double before[5], after[5];
  moments(&L, before);
  advance(&L, params(tau, force, -0.5 * force, 0.25 * force), steps);
  moments(&L, after);
  const double N = (double)L.N, massDrift = (after[0] - before[0]) / before[0];
  const double ax = after[1] / (N * force * steps), ay = after[2] / (N * -0.5 * force * steps),
               az = after[3] / (N * 0.25 * force * steps);
  ok &= fabs(massDrift) < massTolerance;
  ok &= fabs(ax - 1) < forceTolerance && fabs(ay - 1) < forceTolerance && fabs(az - 1) < forceTolerance;
  printf("],\"massDrift\":%.3e,\"acceleration\":[%.6f,%.6f,%.6f],\"ok\":%s}\n", massDrift, ax, ay,
         az, ok ? "true" : "false");
  free(L.data);
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "";
  if (strcmp(what, "lbm") == 0 && argc > 4) {
    lbm(atol(argv[2]), atoi(argv[3]), atol(argv[4]));
    return 0;
  }
  if (strcmp(what, "triad") == 0 && argc > 3) {
    triad(atof(argv[2]), atoi(argv[3]));
    return 0;
  }
  if (strcmp(what, "check") == 0) return check();
  fprintf(stderr,
          "usage: %s lbm <n> <threads> <steps> | triad <megabytes> <threads> | check\n",
          argv[0]);
  return 2;
}
