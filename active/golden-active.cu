// golden-active's CUDA phases: see phases.h. Each runs in a child process of
// its own (main.c), so a hung call costs only that phase's deadline and a
// crash only that phase. Every CUDA, cuBLAS and NCCL call is checked; the
// first failure of a measurement is written into the figure it spoils.
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include "active/phases.h"
extern "C" {
#include "active/hostside.h"
}

#define MAXREPS 64

namespace {

double now_s()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return x < y ? -1 : x > y;
}

float median_ms(float *v, int n)
{
	qsort(v, (size_t)n, sizeof(float), cmp_float);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Record the first failure in buf: "cudaErrorX at call".
void note(char *buf, const char *error, const char *call)
{
	if (!buf[0])
		snprintf(buf, GOLDEN_ACTIVE_ERR_LEN, "%.40s at %.*s", error,
		         (int)(strcspn(call, "(") < 50 ? strcspn(call, "(") : 50), call);
}

bool ck(cudaError_t e, char *buf, const char *call)
{
	if (e == cudaSuccess)
		return true;
	note(buf, cudaGetErrorName(e), call);
	return false;
}

bool ckb(cublasStatus_t s, char *buf, const char *call)
{
	if (s == CUBLAS_STATUS_SUCCESS)
		return true;
	note(buf, cublasGetStatusName(s), call);
	return false;
}

bool ckn(ncclResult_t s, char *buf, const char *call)
{
	if (s == ncclSuccess)
		return true;
	note(buf, ncclGetErrorString(s), call);
	return false;
}

#define CK(call, buf)  ck((call), (buf), #call)
#define CKB(call, buf) ckb((call), (buf), #call)
#define CKN(call, buf) ckn((call), (buf), #call)

// Time `op` on a stream with events, repeated until target_s or MAXREPS;
// returns the median in ms, or -1 after a failure (recorded in err).
template <typename Op> float timed(cudaStream_t st, double target_s, char *err, Op op)
{
	cudaEvent_t a = nullptr, b = nullptr;
	float ms[MAXREPS], r = -1;
	int n = 0;
	double end = now_s() + target_s;

	if (!CK(cudaEventCreate(&a), err) || !CK(cudaEventCreate(&b), err))
		goto out;
	if (!op() || !CK(cudaStreamSynchronize(st), err)) // warm-up
		goto out;
	while (n < MAXREPS && (n < 3 || now_s() < end)) {
		if (!CK(cudaEventRecord(a, st), err) || !op() || !CK(cudaEventRecord(b, st), err) ||
		    !CK(cudaEventSynchronize(b), err) ||
		    !CK(cudaEventElapsedTime(&ms[n], a, b), err))
			goto out;
		n++;
	}
	r = median_ms(ms, n);
out:
	if (a)
		cudaEventDestroy(a);
	if (b)
		cudaEventDestroy(b);
	return r;
}

// One host thread per GPU for the phases that load every GPU at once.
struct per_gpu {
	struct golden_active_report *r;
	const struct golden_active_params *p;
	int g;
};

void run_all(struct golden_active_report *r, const struct golden_active_params *p,
             void *(*fn)(void *))
{
	pthread_t th[GOLDEN_ACTIVE_MAX_GPUS];
	struct per_gpu arg[GOLDEN_ACTIVE_MAX_GPUS];
	bool started[GOLDEN_ACTIVE_MAX_GPUS] = {false};

	for (int g = 0; g < r->ngpus; g++) {
		arg[g] = {r, p, g};
		started[g] = pthread_create(&th[g], nullptr, fn, &arg[g]) == 0;
		if (!started[g])
			fn(&arg[g]);
	}
	for (int g = 0; g < r->ngpus; g++)
		if (started[g])
			pthread_join(th[g], nullptr);
}

// --- kernels -----------------------------------------------------------

__global__ void bf16_to_f32(const unsigned short *in, float *out, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		out[i] = __uint_as_float((unsigned)in[i] << 16);
}

__global__ void gather(const float *c, int m, const int *is, const int *js, int ns, float *out)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;

	if (t < ns)
		out[t] = c[is[t] + (size_t)js[t] * (size_t)m];
}

__device__ unsigned long long pattern(int p, size_t i, unsigned long long seed)
{
	unsigned long long x;

	switch (p) {
	case 0:
		return i ^ seed; // each word its own address
	case 1:
		return ~(i ^ seed);
	case 2:
		return (i & 1) ? 0x5555555555555555ULL : 0xAAAAAAAAAAAAAAAAULL;
	case 3:
		return (i & 1) ? 0xAAAAAAAAAAAAAAAAULL : 0x5555555555555555ULL;
	default: // random, reproducible from the index (splitmix64)
		x = (i + 1) * 0x9E3779B97F4A7C15ULL ^ seed;
		x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
		x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
		return x ^ (x >> 31);
	}
}

__global__ void mt_write(unsigned long long *w, size_t n, int p, unsigned long long seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		w[i] = pattern(p, i, seed);
}

__global__ void mt_check(const unsigned long long *w, size_t n, int p, unsigned long long seed,
                         unsigned long long *errs, unsigned long long *first)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		if (w[i] != pattern(p, i, seed)) {
			atomicAdd(errs, 1ULL);
			atomicMin(first, (unsigned long long)i);
		}
}

__global__ void fill_f32(float *v, size_t n, float x)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		v[i] = x;
}

__global__ void count_ne(const float *v, size_t n, float x, unsigned long long *bad)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		if (v[i] != x)
			atomicAdd(bad, 1ULL);
}

constexpr int GRID = 1024, BLOCK = 256;

// --- discover ------------------------------------------------------------

void driver_version(char *buf, size_t len)
{
	FILE *f = fopen("/proc/driver/nvidia/version", "re");
	char line[256];

	if (!f)
		return;
	if (fgets(line, sizeof(line), f))
		golden_active_driver_version(line, buf, len);
	fclose(f);
}

} // namespace

extern "C" void golden_active_cuda_discover(struct golden_active_report *r)
{
	int n = 0, v = 0;

	driver_version(r->driver, sizeof(r->driver));
	if (cudaRuntimeGetVersion(&v) == cudaSuccess)
		snprintf(r->runtime, sizeof(r->runtime), "%d.%d", v / 1000, v % 1000 / 10);
	if (!CK(cudaGetDeviceCount(&n), r->env_error))
		return;
	if (n > GOLDEN_ACTIVE_MAX_GPUS)
		n = GOLDEN_ACTIVE_MAX_GPUS;
	for (int g = 0; g < n; g++) {
		struct golden_active_gpu *gpu = &r->gpu[g];
		cudaDeviceProp prop;

		gpu->index = g;
		if (!CK(cudaGetDeviceProperties(&prop, g), gpu->fig[GOLDEN_ACTIVE_HBM].error))
			continue;
		snprintf(gpu->name, sizeof(gpu->name), "%.63s", prop.name);
		gpu->mem_total_gib = (double)prop.totalGlobalMem / (1 << 30);
		gpu->sms = prop.multiProcessorCount;
		gpu->cc_major = prop.major;
		gpu->cc_minor = prop.minor;
		if (CK(cudaDeviceGetPCIBusId(gpu->busid, (int)sizeof(gpu->busid), g),
		       gpu->fig[GOLDEN_ACTIVE_HBM].error))
			for (char *c = gpu->busid; *c; c++)
				if (*c >= 'A' && *c <= 'F')
					*c = (char)(*c - 'A' + 'a');
		gpu->done[GOLDEN_ACTIVE_PH_DISCOVER] = true;
	}
	r->ngpus = n;
}

// --- HBM -------------------------------------------------------------------

namespace {

void *hbm_one(void *arg)
{
	struct per_gpu *a = (struct per_gpu *)arg;
	struct golden_active_gpu *gpu = &a->r->gpu[a->g];
	struct golden_active_figure *f = &gpu->fig[GOLDEN_ACTIVE_HBM];
	char *err = f->error;
	void *src = nullptr, *dst = nullptr;
	cudaStream_t st = nullptr;
	size_t freeb = 0, total = 0, bytes = a->p->hbm_bytes;
	float ms;

	if (!CK(cudaSetDevice(gpu->index), err) || !CK(cudaMemGetInfo(&freeb, &total), err))
		goto out;
	if (!bytes)
		bytes = freeb / 8 < ((size_t)1 << 30) ? freeb / 8 : ((size_t)1 << 30);
	if (!CK(cudaMalloc(&src, bytes), err) || !CK(cudaMalloc(&dst, bytes), err) ||
	    !CK(cudaStreamCreate(&st), err) || !CK(cudaMemset(src, 0x5a, bytes), err))
		goto out;
	ms = timed(st, a->p->target_s, err, [&] {
		return CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, st), err);
	});
	if (ms > 0) {
		f->measured = true;
		f->value = 2.0 * (double)bytes / (ms / 1e3) / 1e12; // read + written
	}
	gpu->done[GOLDEN_ACTIVE_PH_HBM] = true;
out:
	if (st)
		cudaStreamDestroy(st);
	cudaFree(src);
	cudaFree(dst);
	return nullptr;
}

// --- GEMM ------------------------------------------------------------------

void *gemm_one(void *arg)
{
	struct per_gpu *a = (struct per_gpu *)arg;
	const struct golden_active_params *p = a->p;
	struct golden_active_gpu *gpu = &a->r->gpu[a->g];
	struct golden_active_figure *fb = &gpu->fig[GOLDEN_ACTIVE_BF16];
	struct golden_active_figure *ft = &gpu->fig[GOLDEN_ACTIVE_TF32];
	const int n = p->gemm_n, ns = p->nsamples;
	const size_t elems = (size_t)n * (size_t)n;
	unsigned short *a16 = nullptr, *b16 = nullptr;
	float *a32 = nullptr, *b32 = nullptr, *c = nullptr, *got = nullptr;
	int *is = nullptr, *js = nullptr;
	cublasHandle_t h = nullptr;
	cudaStream_t st = nullptr;
	const float one = 1.0f, zero = 0.0f;
	float *out = p->gemm_got + (size_t)a->g * 2 * (size_t)ns;
	float ms;

	if (!CK(cudaSetDevice(gpu->index), fb->error) ||
	    !CK(cudaMalloc(&a16, elems * 2), fb->error) ||
	    !CK(cudaMalloc(&b16, elems * 2), fb->error) ||
	    !CK(cudaMalloc(&c, elems * 4), fb->error) ||
	    !CK(cudaMalloc(&got, (size_t)ns * 4), fb->error) ||
	    !CK(cudaMalloc(&is, (size_t)ns * sizeof(int)), fb->error) ||
	    !CK(cudaMalloc(&js, (size_t)ns * sizeof(int)), fb->error) ||
	    !CK(cudaStreamCreate(&st), fb->error) ||
	    !CK(cudaMemcpy(a16, p->gemm_a, elems * 2, cudaMemcpyHostToDevice), fb->error) ||
	    !CK(cudaMemcpy(b16, p->gemm_b, elems * 2, cudaMemcpyHostToDevice), fb->error) ||
	    !CK(cudaMemcpy(is, p->sample_i, (size_t)ns * sizeof(int), cudaMemcpyHostToDevice),
	        fb->error) ||
	    !CK(cudaMemcpy(js, p->sample_j, (size_t)ns * sizeof(int), cudaMemcpyHostToDevice),
	        fb->error) ||
	    !CKB(cublasCreate(&h), fb->error) || !CKB(cublasSetStream(h, st), fb->error))
		goto out;
	ms = timed(st, p->target_s / 2, fb->error, [&] {
		return CKB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a16, CUDA_R_16BF,
		                        n, b16, CUDA_R_16BF, n, &zero, c, CUDA_R_32F, n,
		                        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
		           fb->error);
	});
	if (ms <= 0)
		goto out;
	gather<<<(ns + 255) / 256, 256, 0, st>>>(c, n, is, js, ns, got);
	if (!CK(cudaGetLastError(), fb->error) ||
	    !CK(cudaMemcpyAsync(out, got, (size_t)ns * 4, cudaMemcpyDeviceToHost, st), fb->error) ||
	    !CK(cudaStreamSynchronize(st), fb->error))
		goto out;
	fb->measured = true;
	fb->value = 2.0 * n * (double)n * n / (ms / 1e3) / 1e12;

	// TF32 on the same values: bf16 is exact in TF32, so the reference holds.
	if (!CK(cudaMalloc(&a32, elems * 4), ft->error) ||
	    !CK(cudaMalloc(&b32, elems * 4), ft->error))
		goto out;
	bf16_to_f32<<<GRID, BLOCK, 0, st>>>(a16, a32, elems);
	bf16_to_f32<<<GRID, BLOCK, 0, st>>>(b16, b32, elems);
	if (!CK(cudaGetLastError(), ft->error))
		goto out;
	ms = timed(st, p->target_s / 2, ft->error, [&] {
		return CKB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a32, CUDA_R_32F,
		                        n, b32, CUDA_R_32F, n, &zero, c, CUDA_R_32F, n,
		                        CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT),
		           ft->error);
	});
	if (ms <= 0)
		goto out;
	gather<<<(ns + 255) / 256, 256, 0, st>>>(c, n, is, js, ns, got);
	if (!CK(cudaGetLastError(), ft->error) ||
	    !CK(cudaMemcpyAsync(out + ns, got, (size_t)ns * 4, cudaMemcpyDeviceToHost, st),
	        ft->error) ||
	    !CK(cudaStreamSynchronize(st), ft->error))
		goto out;
	ft->measured = true;
	ft->value = 2.0 * n * (double)n * n / (ms / 1e3) / 1e12;
	gpu->done[GOLDEN_ACTIVE_PH_GEMM] = true;
out:
	if (h)
		cublasDestroy(h);
	if (st)
		cudaStreamDestroy(st);
	cudaFree(a16);
	cudaFree(b16);
	cudaFree(a32);
	cudaFree(b32);
	cudaFree(c);
	cudaFree(got);
	cudaFree(is);
	cudaFree(js);
	return nullptr;
}

// --- memory patterns ---------------------------------------------------------

void *memtest_one(void *arg)
{
	struct per_gpu *a = (struct per_gpu *)arg;
	struct golden_active_gpu *gpu = &a->r->gpu[a->g];
	struct golden_active_figure *f = &gpu->fig[GOLDEN_ACTIVE_MEMTEST];
	char *err = f->error;
	unsigned long long *w = nullptr, *d = nullptr, h[2] = {0, ~0ULL}, errors = 0;
	size_t freeb = 0, total = 0, bytes, words;
	double end = now_s() + a->p->target_s, tested = 0;
	cudaError_t e = cudaSuccess;

	if (!CK(cudaSetDevice(gpu->index), err) || !CK(cudaMemGetInfo(&freeb, &total), err))
		goto out;
	// As much of the fraction as the allocator gives, down to 256 MiB.
	for (bytes = (size_t)((double)freeb * a->p->memtest_frac) & ~(size_t)7;
	     bytes >= ((size_t)256 << 20); bytes /= 2)
		if ((e = cudaMalloc(&w, bytes)) == cudaSuccess)
			break;
	if (!w) {
		ck(e, err, "cudaMalloc (memtest)");
		goto out;
	}
	words = bytes / 8;
	if (!CK(cudaMalloc(&d, sizeof(h)), err))
		goto out;
	for (int pass = 0; pass < 5 || (now_s() < end && pass < 40); pass++) {
		int pat = pass % 5;
		unsigned long long seed = a->p->seed + (unsigned long long)pass * 0x1000193ULL;

		if (!CK(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice), err))
			goto out;
		mt_write<<<GRID, BLOCK>>>(w, words, pat, seed);
		mt_check<<<GRID, BLOCK>>>(w, words, pat, seed, d, d + 1);
		if (!CK(cudaGetLastError(), err) ||
		    !CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost), err))
			goto out;
		tested += (double)bytes;
		if (h[0] && (!errors || h[1] * 8 < gpu->first_bad))
			gpu->first_bad = h[1] * 8;
		errors += h[0];
		h[0] = 0;
		h[1] = ~0ULL;
	}
	f->measured = true;
	f->value = (double)errors;
	gpu->memtest_gib = tested / (1 << 30);
	gpu->done[GOLDEN_ACTIVE_PH_MEMTEST] = true;
out:
	cudaFree(w);
	cudaFree(d);
	return nullptr;
}

} // namespace

extern "C" void golden_active_cuda_hbm(struct golden_active_report *r,
                                       const struct golden_active_params *p)
{
	run_all(r, p, hbm_one);
}

extern "C" void golden_active_cuda_gemm(struct golden_active_report *r,
                                        const struct golden_active_params *p)
{
	run_all(r, p, gemm_one);
}

extern "C" void golden_active_cuda_memtest(struct golden_active_report *r,
                                           const struct golden_active_params *p)
{
	run_all(r, p, memtest_one);
}

// --- host link ---------------------------------------------------------------

extern "C" void golden_active_cuda_pcie(struct golden_active_report *r,
                                        const struct golden_active_params *p,
                                        const struct golden_active_cpus *cpus)
{
	for (int g = 0; g < r->ngpus; g++) {
		struct golden_active_gpu *gpu = &r->gpu[g];
		struct golden_active_figure *fh = &gpu->fig[GOLDEN_ACTIVE_H2D];
		struct golden_active_figure *fd = &gpu->fig[GOLDEN_ACTIVE_D2H];
		void *host = nullptr, *dev = nullptr;
		cudaStream_t st = nullptr;
		size_t bytes = p->pcie_bytes;
		cpu_set_t set;
		bool any = false;
		float ms;

		// Pinned memory is placed where the thread runs: next to the GPU.
		CPU_ZERO(&set);
		for (int c = 0; c < 1024 && c < CPU_SETSIZE; c++)
			if (cpus[g].mask[c / 64] & (1ULL << (c % 64))) {
				CPU_SET(c, &set);
				any = true;
			}
		if (any)
			sched_setaffinity(0, sizeof(set), &set);
		if (!CK(cudaSetDevice(gpu->index), fh->error) ||
		    !CK(cudaMallocHost(&host, bytes), fh->error) ||
		    !CK(cudaMalloc(&dev, bytes), fh->error) || !CK(cudaStreamCreate(&st), fh->error))
			goto next;
		memset(host, 0x3c, bytes);
		ms = timed(st, p->target_s / 2 / r->ngpus, fh->error, [&] {
			return CK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, st),
			          fh->error);
		});
		if (ms > 0) {
			fh->measured = true;
			fh->value = (double)bytes / (ms / 1e3) / 1e9;
		}
		ms = timed(st, p->target_s / 2 / r->ngpus, fd->error, [&] {
			return CK(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, st),
			          fd->error);
		});
		if (ms > 0) {
			fd->measured = true;
			fd->value = (double)bytes / (ms / 1e3) / 1e9;
		}
		gpu->done[GOLDEN_ACTIVE_PH_PCIE] = true;
	next:
		if (st)
			cudaStreamDestroy(st);
		cudaFree(dev);
		cudaFreeHost(host);
	}
}

// --- peers -------------------------------------------------------------------

extern "C" void golden_active_cuda_p2p(struct golden_active_report *r,
                                       const struct golden_active_params *p)
{
	int npairs = 0;

	for (int a = 0; a < r->ngpus; a++)
		for (int b = a + 1; b < r->ngpus; b++) {
			int ab = 0, ba = 0;

			if (cudaDeviceCanAccessPeer(&ab, a, b) == cudaSuccess && ab &&
			    cudaDeviceCanAccessPeer(&ba, b, a) == cudaSuccess && ba)
				npairs++;
		}
	for (int a = 0; a < r->ngpus; a++) {
		for (int b = a + 1; b < r->ngpus; b++) {
			struct golden_active_pair *q = &r->pair[r->npairs];
			void *src = nullptr, *dst = nullptr;
			cudaStream_t st = nullptr;
			cudaError_t e;
			int ab = 0, ba = 0;
			float ms;

			if (cudaDeviceCanAccessPeer(&ab, a, b) != cudaSuccess || !ab ||
			    cudaDeviceCanAccessPeer(&ba, b, a) != cudaSuccess || !ba)
				continue; // no peer path: nothing to expect
			memset(q, 0, sizeof(*q));
			q->a = r->gpu[a].index;
			q->b = r->gpu[b].index;
			r->npairs++;
			if (!CK(cudaSetDevice(b), q->error) || !CK(cudaMalloc(&dst, p->p2p_bytes), q->error))
				goto next;
			e = cudaDeviceEnablePeerAccess(a, 0);
			if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) {
				ck(e, q->error, "cudaDeviceEnablePeerAccess");
				goto next;
			}
			cudaGetLastError(); // clear "already enabled"
			if (!CK(cudaSetDevice(a), q->error) || !CK(cudaMalloc(&src, p->p2p_bytes), q->error))
				goto next;
			e = cudaDeviceEnablePeerAccess(b, 0);
			if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) {
				ck(e, q->error, "cudaDeviceEnablePeerAccess");
				goto next;
			}
			cudaGetLastError();
			if (!CK(cudaStreamCreate(&st), q->error))
				goto next;
			ms = timed(st, p->target_s / (npairs ? npairs : 1), q->error, [&] {
				return CK(cudaMemcpyPeerAsync(dst, b, src, a, p->p2p_bytes, st),
				          q->error);
			});
			if (ms > 0)
				q->gbps = (double)p->p2p_bytes / (ms / 1e3) / 1e9;
		next:
			if (st)
				cudaStreamDestroy(st);
			cudaSetDevice(a);
			cudaFree(src);
			cudaSetDevice(b);
			cudaFree(dst);
		}
		r->gpu[a].done[GOLDEN_ACTIVE_PH_P2P] = true;
	}
}

// --- NCCL ---------------------------------------------------------------------

extern "C" void golden_active_cuda_nccl(struct golden_active_report *r,
                                        const struct golden_active_params *p)
{
	struct golden_active_nccl *c = &r->nccl;
	int n = r->ngpus, devs[GOLDEN_ACTIVE_MAX_GPUS] = {0};
	ncclComm_t comm[GOLDEN_ACTIVE_MAX_GPUS] = {nullptr};
	cudaStream_t st[GOLDEN_ACTIVE_MAX_GPUS] = {nullptr};
	float *send[GOLDEN_ACTIVE_MAX_GPUS] = {nullptr}, *recv[GOLDEN_ACTIVE_MAX_GPUS] = {nullptr};
	unsigned long long *bad[GOLDEN_ACTIVE_MAX_GPUS] = {nullptr};
	size_t count = p->nccl_bytes / sizeof(float);
	const float want = (float)n * (float)(n + 1) / 2; // sum of rank + 1: exact in float
	double t0 = 0, t1, end = 0;
	int iters = 0;
	bool inited = false;

	for (int g = 0; g < n; g++)
		devs[g] = r->gpu[g].index;
	if (!CKN(ncclCommInitAll(comm, n, devs), c->error))
		return;
	inited = true;
	for (int g = 0; g < n; g++) {
		if (!CK(cudaSetDevice(devs[g]), c->error) || !CK(cudaStreamCreate(&st[g]), c->error) ||
		    !CK(cudaMalloc(&send[g], count * sizeof(float)), c->error) ||
		    !CK(cudaMalloc(&recv[g], count * sizeof(float)), c->error) ||
		    !CK(cudaMalloc(&bad[g], sizeof(unsigned long long)), c->error) ||
		    !CK(cudaMemsetAsync(bad[g], 0, sizeof(unsigned long long), st[g]), c->error))
			goto out;
		fill_f32<<<GRID, BLOCK, 0, st[g]>>>(send[g], count, (float)(g + 1));
		if (!CK(cudaGetLastError(), c->error))
			goto out;
	}
	// One all-reduce whose sums are checked, then timed ones.
	for (int rep = 0; rep < 2 + MAXREPS; rep++) {
		if (rep == 2)
			t0 = now_s();
		if (!CKN(ncclGroupStart(), c->error))
			goto out;
		for (int g = 0; g < n; g++)
			if (!CKN(ncclAllReduce(send[g], recv[g], count, ncclFloat, ncclSum, comm[g],
			                       st[g]),
			         c->error)) {
				ncclGroupEnd();
				goto out;
			}
		if (!CKN(ncclGroupEnd(), c->error))
			goto out;
		for (int g = 0; g < n; g++)
			if (!CK(cudaSetDevice(devs[g]), c->error) ||
			    !CK(cudaStreamSynchronize(st[g]), c->error))
				goto out;
		if (rep == 0) {
			unsigned long long sum = 0, h;

			for (int g = 0; g < n; g++) {
				if (!CK(cudaSetDevice(devs[g]), c->error))
					goto out;
				count_ne<<<GRID, BLOCK, 0, st[g]>>>(recv[g], count, want, bad[g]);
				if (!CK(cudaMemcpyAsync(&h, bad[g], sizeof(h), cudaMemcpyDeviceToHost,
				                        st[g]),
				        c->error) ||
				    !CK(cudaStreamSynchronize(st[g]), c->error))
					goto out;
				sum += h;
			}
			c->wrong = sum != 0;
			end = now_s() + p->target_s;
		}
		if (rep >= 2) {
			iters++;
			if (now_s() > end && iters >= 3)
				break;
		}
	}
	t1 = now_s();
	c->measured = true;
	c->bytes = (double)(count * sizeof(float));
	c->busbw_gbps = (c->bytes * 2.0 * (n - 1) / n) / ((t1 - t0) / iters) / 1e9;
out:
	for (int g = 0; g < n; g++) {
		cudaSetDevice(devs[g]);
		if (inited && comm[g])
			ncclCommDestroy(comm[g]);
		if (st[g])
			cudaStreamDestroy(st[g]);
		cudaFree(send[g]);
		cudaFree(recv[g]);
		cudaFree(bad[g]);
	}
}
