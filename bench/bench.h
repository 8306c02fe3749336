/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the benchmarks: a wall clock, medians, memory in use
 * and a header naming the machine.  The benchmarks read a clock; the
 * library never does.
 */
#ifndef IOQOS_BENCH_H
#define IOQOS_BENCH_H

#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ioqos.h>

/* repetitions of every timed batch; the median is reported */
#define BENCH_RUNS 7

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CPU time of the calling thread: what a batch cost when others share the CPU */
static inline uint64_t bench_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* the median of @n values (sorts them) */
static inline double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* bytes the allocator has handed out and not had back */
static inline size_t bench_heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/* the CPU model, the compiler, the library and the date */
static inline void bench_header(const char *name)
{
	char model[256] = "unknown", line[512], date[64];
	FILE *f = fopen("/proc/cpuinfo", "r");
	time_t t = time(NULL);
	int cpus = 0;

	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (strncmp(line, "model name", 10) == 0) {
				char *p = strchr(line, ':');

				cpus++;
				if (p && cpus == 1) {
					p += 1 + (p[1] == ' ');
					p[strcspn(p, "\n")] = '\0';
					snprintf(model, sizeof(model), "%s", p);
				}
			}
		}
		fclose(f);
	}
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&t));
	printf("%s: libioqos %s, %s\n", name, IOQOS_VERSION_STRING, date);
	printf("cpu: %s (%d logical cpus)", model, cpus);
	f = fopen("/proc/loadavg", "r");
	if (f) {
		double load;

		if (fscanf(f, "%lf", &load) == 1)
			printf(", load average %.2f at start", load);
		fclose(f);
	}
	printf("\n");
#ifdef __VERSION__
	printf("compiler: %s%s\n",
#ifdef __clang__
	       "clang ",
#else
	       "gcc ",
#endif
	       __VERSION__);
#endif
}

#endif
