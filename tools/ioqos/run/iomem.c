/* SPDX-License-Identifier: MIT */
/*
 * mem= and iomem=, as fio 3.33 allocates a job's I/O buffers
 * (memory.c): one region for all of a job's buffers, taken the way the
 * job asks, cut into a buffer per I/O slot.
 *
 *   malloc       malloc(3) (fio's default)
 *   shm          a System V segment: shmget(IPC_PRIVATE), shmat
 *   shmhuge      the same with SHM_HUGETLB, the size rounded up to a huge
 *                page (2 MiB, fio's hugepage-size on Linux)
 *   mmap         an anonymous private mapping, or with mmap:FILE a
 *                private mapping of FILE (created if missing, set to the
 *                region's size, removed at the end if it was created)
 *   mmaphuge     MAP_HUGETLB, rounded up to a huge page; mmaphuge:FILE a
 *                shared mapping of FILE (a hugetlbfs file)
 *   mmapshared   as mmap without a file (fio maps it private then too);
 *                mmapshared:FILE a shared mapping of FILE
 *
 * The region is fio's size: iodepth= buffers of the largest bs (a
 * synchronous engine's job too), and with direct=1 twice a page less a
 * byte more (fio pads for the alignment twice), so 4 x 64k is 270334
 * bytes; ioqos cuts it at multiples of 4096 bytes, which O_DIRECT needs,
 * and pads a malloc'd region for that too.  A failure
 * is the run's, before any I/O, with the call and its errno as fio gives
 * them ("shmget: Cannot allocate memory"), and fio's hint for huge pages.
 * The sim and null engines move no data and allocate nothing, as fio's
 * FIO_NOIO engines.  cudamalloc is refused: ioqos has no CUDA.
 */
#include "run/iomem.h"

#include "job/jobopts_io.h"

#include "run/runner_parts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

/* fio's hugepage-size default on Linux */
#define HUGE_PAGE_BYTES (2u << 20)
/* the alignment of each buffer: O_DIRECT's */
#define BUF_ALIGN 4096u

static int fail(const char *call, int e, const struct job *j, char *err, size_t errlen)
{
	const char *hint = "";

	if (j->iomem == MEM_SHMHUGE && e == EINVAL)
		hint = " (check that you have free huge pages and that hugepage-size is correct)";
	else if ((j->iomem == MEM_SHMHUGE || j->iomem == MEM_MMAPHUGE) && e == ENOMEM)
		hint = " (no huge pages available, do you need to allocate some?)";
	snprintf(err, errlen, "job '%s': mem=%s: %s: %s%s", j->name, iomem_name(j->iomem), call,
		 strerror(e), hint);
	return -e;
}

int iomem_alloc(struct stream *s, size_t each, char *err, size_t errlen)
{
	const struct job *j = s->job;
	/* fio's size: iodepth buffers (a synchronous engine's too), and for
	 * O_DIRECT twice a page less a byte (init_io_u() adds one,
	 * allocate_io_mem() another); malloc's padded for the alignment */
	size_t n = j->iodepth > s->depth ? j->iodepth : s->depth;
	size_t pad = j->direct ? 2 * (BUF_ALIGN - 1) : j->iomem == MEM_MALLOC ? BUF_ALIGN - 1 : 0;
	size_t total = each * n + pad;
	int flags;
	void *p;

	s->mem_fd = -1;
	s->mem_shmid = -1;
	if (j->iomem == MEM_SHMHUGE || j->iomem == MEM_MMAPHUGE)
		total = (total + HUGE_PAGE_BYTES - 1) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
	s->mem_len = total;
	switch (j->iomem) {
	case MEM_MALLOC:
		if (!(p = malloc(total)))
			return fail("malloc", ENOMEM, j, err, errlen);
		break;
	case MEM_SHM:
	case MEM_SHMHUGE:
		flags = IPC_CREAT | S_IRUSR | S_IWUSR | (j->iomem == MEM_SHMHUGE ? SHM_HUGETLB : 0);
		s->mem_shmid = shmget(IPC_PRIVATE, total, flags);
		if (s->mem_shmid < 0)
			return fail("shmget", errno, j, err, errlen);
		p = shmat(s->mem_shmid, NULL, 0);
		if (p == (void *)-1)
			return fail("shmat", errno, j, err, errlen);
		break;
	default:
		flags = MAP_PRIVATE | MAP_ANONYMOUS;
		if (j->iomem_file[0]) {
			s->mem_keep = access(j->iomem_file, F_OK) == 0;
			s->mem_fd = open(j->iomem_file, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
			if (s->mem_fd < 0)
				return fail("open mmap file", errno, j, err, errlen);
			if (j->iomem == MEM_MMAP && ftruncate(s->mem_fd, (off_t)total))
				return fail("truncate mmap file", errno, j, err, errlen);
			flags = j->iomem == MEM_MMAP ? MAP_PRIVATE : MAP_SHARED;
		} else if (j->iomem == MEM_MMAPHUGE) {
			flags |= MAP_HUGETLB;
		}
		p = mmap(NULL, total, PROT_READ | PROT_WRITE, flags, s->mem_fd, 0);
		if (p == MAP_FAILED)
			return fail("mmap", errno, j, err, errlen);
		break;
	}
	s->mem_base = p;
	return 0;
}

void *iomem_buf(const struct stream *s, unsigned k, size_t each)
{
	uintptr_t a = ((uintptr_t)s->mem_base + BUF_ALIGN - 1) & ~(uintptr_t)(BUF_ALIGN - 1);

	return (char *)a + (size_t)k * each;
}

void iomem_free(struct stream *s)
{
	const struct job *j = s->job;

	if (!s->mem_len)
		return;             /* none allocated (null, the sim) */
	if (s->mem_base) {
		if (j->iomem == MEM_MALLOC)
			free(s->mem_base);
		else if (j->iomem == MEM_SHM || j->iomem == MEM_SHMHUGE)
			shmdt(s->mem_base);
		else
			munmap(s->mem_base, s->mem_len);
	}
	if (s->mem_shmid >= 0)
		shmctl(s->mem_shmid, IPC_RMID, NULL);
	if (s->mem_fd >= 0) {
		close(s->mem_fd);
		if (!s->mem_keep)
			unlink(j->iomem_file);
	}
	s->mem_base = NULL;
	s->mem_shmid = s->mem_fd = -1;
}
