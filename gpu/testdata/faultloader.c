// faultloader.c: a Vulkan "loader" for tests. It forwards every function
// to libvulkan.so.1 (through DT_NEEDED: dlsym on this library's handle
// searches its dependencies) and intercepts some, to fake a hung GPU and to
// check what vkdml does meanwhile.
//
// While the file named by $VKDML_FAULT_HANG_FILE exists, the GPU "hangs":
// vkWaitForFences returns VK_TIMEOUT and vkGetFenceStatus VK_NOT_READY (a
// count in the file first lets that many waits through; see hung).
// The real work finishes meanwhile, but a submission counts as executing
// until vkdml asks about its fence after the file is gone (or waits for the
// whole device). The loader tracks what each submission uses: its command
// buffers and their pools, the buffers they copy and fill, the descriptor
// sets they bind and the buffers those point at, the memory bound to every
// such buffer, pipelines, query pools and the fence. Destroying, freeing,
// resetting or re-recording any of them while a submission that uses it
// is executing is an error, and so is an unbounded wait (vkDeviceWaitIdle,
// vkGetQueryPoolResults with WAIT) while the GPU hangs.
//
// Errors are written to stderr and appended to $VKDML_FAULT_REPORT as lines
// "error: <call> while N submission(s) were still executing (...)". At
// vkDestroyDevice a line "live: buffers=... " counts the objects of that
// device still alive, so that tests see leaks.
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../vkapi.h"

#define NOT_READY 1
#define TIMEOUT 2

// Kinds of tracked object; the names are those of the live line.
enum { K_BUFFER, K_MEMORY, K_CMDPOOL, K_DESCPOOL, K_FENCE, K_QUERYPOOL, K_PIPELINE, K_CB, K_SET, NKINDS };
static const char *kind_names[NKINDS] = {"buffers",    "memory",    "commandPools", "descriptorPools", "fences",
                                         "queryPools", "pipelines", "commandBuffers", "descriptorSets"};
#define NCOUNTED K_CB // command buffers and sets die with their pools

// refs is a growable list of (kind, handle) pairs.
typedef struct {
	uint64_t *v;
	size_t n, cap;
} refs;

static void refs_add(refs *r, int kind, uint64_t h) {
	if (r->n + 2 > r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->v = realloc(r->v, r->cap * sizeof(uint64_t));
		if (r->v == NULL) {
			abort();
		}
	}
	r->v[r->n++] = (uint64_t)kind;
	r->v[r->n++] = h;
}

// node is a tracked object: a buffer (parent: its memory), a descriptor set
// or command buffer (parent: its pool; uses: the buffers a set points at,
// what a command buffer records).
typedef struct node {
	int kind;
	uint64_t h, parent;
	refs uses;
	struct node *next;
} node;

#define NBUCKETS 4096
static node *buckets[NBUCKETS];

static size_t bucket(int kind, uint64_t h) { return (size_t)((h * 0x9E3779B97F4A7C15ull) >> 40 ^ (uint64_t)kind) % NBUCKETS; }

static node *find(int kind, uint64_t h) {
	for (node *n = buckets[bucket(kind, h)]; n != NULL; n = n->next) {
		if (n->kind == kind && n->h == h) {
			return n;
		}
	}
	return NULL;
}

static node *track(int kind, uint64_t h, uint64_t parent) {
	node *n = find(kind, h);
	if (n == NULL) {
		if ((n = calloc(1, sizeof(*n))) == NULL) {
			abort();
		}
		size_t b = bucket(kind, h);
		n->next = buckets[b];
		buckets[b] = n;
	}
	n->kind = kind;
	n->h = h;
	n->parent = parent;
	n->uses.n = 0;
	return n;
}

static void untrack(int kind, uint64_t h) {
	for (node **p = &buckets[bucket(kind, h)]; *p != NULL; p = &(*p)->next) {
		if ((*p)->kind == kind && (*p)->h == h) {
			node *n = *p;
			*p = n->next;
			free(n->uses.v);
			free(n);
			return;
		}
	}
}

// untrack_children forgets the sets or command buffers of a pool.
static void untrack_children(int kind, uint64_t pool) {
	for (size_t b = 0; b < NBUCKETS; b++) {
		for (node **p = &buckets[b]; *p != NULL;) {
			node *n = *p;
			if (n->kind == kind && n->parent == pool) {
				*p = n->next;
				free(n->uses.v);
				free(n);
			} else {
				p = &n->next;
			}
		}
	}
}

// sub is a submission not yet seen complete, with everything it uses.
typedef struct sub {
	VkDevice dev;
	VkFence fence;
	refs uses;
	struct sub *next;
} sub;

static sub *pending;

// Live objects per device.
#define NDEVICES 64
static struct {
	VkDevice dev;
	long live[NCOUNTED];
} devices[NDEVICES];

static long *counts(VkDevice dev) {
	int freeSlot = -1;
	for (int i = 0; i < NDEVICES; i++) {
		if (devices[i].dev == dev) {
			return devices[i].live;
		}
		if (devices[i].dev == NULL && freeSlot < 0) {
			freeSlot = i;
		}
	}
	if (freeSlot < 0) {
		abort();
	}
	devices[freeSlot].dev = dev;
	return devices[freeSlot].live;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void report(const char *fmt, ...) {
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	strcat(line, "\n");
	fprintf(stderr, "faultloader: %s", line);
	const char *path = getenv("VKDML_FAULT_REPORT");
	if (path != NULL) {
		int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd >= 0) {
			ssize_t w = write(fd, line, strlen(line));
			(void)w;
			close(fd);
		}
	}
}

// hung reports whether the GPU hangs: the hang file exists and holds no
// count. A count N (decimal) lets the next N vkWaitForFences calls through
// (each rewrites the file with one less) and hangs the one after, so that a
// test can time out the Nth wait of a call.
static int hung(void) {
	const char *f = getenv("VKDML_FAULT_HANG_FILE");
	if (f == NULL) {
		return 0;
	}
	FILE *fp = fopen(f, "r");
	if (fp == NULL) {
		return 0;
	}
	long skip = 0;
	int got = fscanf(fp, "%ld", &skip);
	fclose(fp);
	return got != 1 || skip <= 0;
}

// pass counts one wait let through by a count in the hang file.
static void pass(void) {
	const char *f = getenv("VKDML_FAULT_HANG_FILE");
	FILE *fp = f != NULL ? fopen(f, "r+") : NULL;
	if (fp == NULL) {
		return;
	}
	long skip = 0;
	if (fscanf(fp, "%ld", &skip) == 1 && skip > 0) {
		rewind(fp);
		fprintf(fp, "%-20ld\n", skip - 1);
	}
	fclose(fp);
}

// users counts the pending submissions that use object h of kind.
static int users(int kind, uint64_t h) {
	int n = 0;
	for (sub *s = pending; s != NULL; s = s->next) {
		for (size_t i = 0; i < s->uses.n; i += 2) {
			if (s->uses.v[i] == (uint64_t)kind && s->uses.v[i + 1] == h) {
				n++;
				break;
			}
		}
	}
	return n;
}

// check reports call on object h of kind when a pending submission uses it.
static void check(const char *call, int kind, uint64_t h) {
	int n = users(kind, h);
	if (n > 0) {
		report("error: %s while %d submission(s) were still executing (one of its %s, %#llx)", call, n, kind_names[kind],
		       (unsigned long long)h);
	}
}

static void retire(sub **p) {
	sub *s = *p;
	*p = s->next;
	free(s->uses.v);
	free(s);
}

// complete retires the submissions signalling fence (all of dev's when
// fence is 0).
static void complete(VkDevice dev, VkFence fence) {
	for (sub **p = &pending; *p != NULL;) {
		if ((*p)->dev == dev && (fence == 0 || (*p)->fence == fence)) {
			retire(p);
		} else {
			p = &(*p)->next;
		}
	}
}

#define REAL(name)                                                                                                     \
	static PFN_##name real;                                                                                            \
	if (real == NULL) {                                                                                                \
		void *lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);                                                   \
		if (lib == NULL || (real = (PFN_##name)dlsym(lib, #name)) == NULL) {                                           \
			abort();                                                                                                   \
		}                                                                                                              \
	}

#define LOCKED(body)                                                                                                   \
	do {                                                                                                               \
		pthread_mutex_lock(&mu);                                                                                       \
		body;                                                                                                          \
		pthread_mutex_unlock(&mu);                                                                                     \
	} while (0)

// Waits.

VkResult vkGetFenceStatus(VkDevice device, VkFence fence);

VkResult vkWaitForFences(VkDevice device, uint32_t count, const VkFence *fences, VkBool32 all, uint64_t timeout) {
	REAL(vkWaitForFences);
	if (hung()) {
		uint64_t us = timeout / 1000;
		usleep(us < 10000 ? (useconds_t)us : 10000);
		return TIMEOUT;
	}
	pass();
	VkResult r = real(device, count, fences, all, timeout);
	if (r == VK_SUCCESS) {
		for (uint32_t i = 0; i < count; i++) {
			if (all || vkGetFenceStatus(device, fences[i]) == VK_SUCCESS) {
				LOCKED(complete(device, fences[i]));
			}
		}
	}
	return r;
}

VkResult vkGetFenceStatus(VkDevice device, VkFence fence) {
	REAL(vkGetFenceStatus);
	if (hung()) {
		return NOT_READY;
	}
	VkResult r = real(device, fence);
	if (r == VK_SUCCESS) {
		LOCKED(complete(device, fence));
	}
	return r;
}

VkResult vkDeviceWaitIdle(VkDevice device) {
	REAL(vkDeviceWaitIdle);
	if (hung()) {
		report("error: vkDeviceWaitIdle while the GPU hangs (an unbounded wait)");
	}
	VkResult r = real(device);
	if (r == VK_SUCCESS) {
		LOCKED(complete(device, 0));
	}
	return r;
}

VkResult vkGetQueryPoolResults(VkDevice device, VkQueryPool pool, uint32_t first, uint32_t count, size_t size,
                               void *data, VkDeviceSize stride, VkQueryResultFlags flags) {
	REAL(vkGetQueryPoolResults);
	pthread_mutex_lock(&mu);
	if (flags & VK_QUERY_RESULT_WAIT_BIT) {
		check("vkGetQueryPoolResults with VK_QUERY_RESULT_WAIT_BIT (an unbounded wait)", K_QUERYPOOL, pool);
	}
	pthread_mutex_unlock(&mu);
	return real(device, pool, first, count, size, data, stride, flags);
}

// Submission.

VkResult vkQueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits, VkFence fence) {
	REAL(vkQueueSubmit);
	VkResult r = real(queue, count, submits, fence);
	if (r != VK_SUCCESS) {
		return r;
	}
	sub *s = calloc(1, sizeof(*s));
	if (s == NULL) {
		abort();
	}
	s->fence = fence;
	pthread_mutex_lock(&mu);
	refs_add(&s->uses, K_FENCE, fence);
	for (uint32_t i = 0; i < count; i++) {
		for (uint32_t j = 0; j < submits[i].commandBufferCount; j++) {
			uint64_t cb = (uint64_t)(uintptr_t)submits[i].pCommandBuffers[j];
			refs_add(&s->uses, K_CB, cb);
			node *c = find(K_CB, cb);
			if (c == NULL) {
				continue;
			}
			refs_add(&s->uses, K_CMDPOOL, c->parent);
			for (size_t k = 0; k < c->uses.n; k += 2) {
				int kind = (int)c->uses.v[k];
				uint64_t h = c->uses.v[k + 1];
				refs_add(&s->uses, kind, h);
				node *set = kind == K_SET ? find(K_SET, h) : NULL;
				if (set != NULL) {
					refs_add(&s->uses, K_DESCPOOL, set->parent);
				}
				for (size_t m = 0; set != NULL && m < set->uses.n; m += 2) {
					refs_add(&s->uses, K_BUFFER, set->uses.v[m + 1]);
				}
			}
		}
	}
	// The memory of every buffer used.
	size_t n = s->uses.n;
	for (size_t k = 0; k < n; k += 2) {
		node *b = s->uses.v[k] == K_BUFFER ? find(K_BUFFER, s->uses.v[k + 1]) : NULL;
		if (b != NULL && b->parent != 0) {
			refs_add(&s->uses, K_MEMORY, b->parent);
		}
	}
	node *f = find(K_FENCE, fence); // a fence's parent is its device
	s->dev = f != NULL ? (VkDevice)(uintptr_t)f->parent : NULL;
	s->next = pending;
	pending = s;
	pthread_mutex_unlock(&mu);
	return r;
}

// Recording.

static void record(VkCommandBuffer cb, int kind, uint64_t h) {
	LOCKED({
		node *c = find(K_CB, (uint64_t)(uintptr_t)cb);
		if (c != NULL) {
			refs_add(&c->uses, kind, h);
		}
	});
}

void vkCmdCopyBuffer(VkCommandBuffer cb, VkBuffer src, VkBuffer dst, uint32_t n, const VkBufferCopy *regions) {
	REAL(vkCmdCopyBuffer);
	record(cb, K_BUFFER, src);
	record(cb, K_BUFFER, dst);
	real(cb, src, dst, n, regions);
}

void vkCmdFillBuffer(VkCommandBuffer cb, VkBuffer dst, VkDeviceSize off, VkDeviceSize size, uint32_t data) {
	REAL(vkCmdFillBuffer);
	record(cb, K_BUFFER, dst);
	real(cb, dst, off, size, data);
}

void vkCmdBindPipeline(VkCommandBuffer cb, VkPipelineBindPoint point, VkPipeline p) {
	REAL(vkCmdBindPipeline);
	record(cb, K_PIPELINE, p);
	real(cb, point, p);
}

void vkCmdBindDescriptorSets(VkCommandBuffer cb, VkPipelineBindPoint point, VkPipelineLayout layout, uint32_t first,
                             uint32_t n, const VkDescriptorSet *sets, uint32_t ndyn, const uint32_t *dyn) {
	REAL(vkCmdBindDescriptorSets);
	for (uint32_t i = 0; i < n; i++) {
		record(cb, K_SET, sets[i]);
	}
	real(cb, point, layout, first, n, sets, ndyn, dyn);
}

void vkCmdResetQueryPool(VkCommandBuffer cb, VkQueryPool q, uint32_t first, uint32_t n) {
	REAL(vkCmdResetQueryPool);
	record(cb, K_QUERYPOOL, q);
	real(cb, q, first, n);
}

void vkCmdWriteTimestamp(VkCommandBuffer cb, VkPipelineStageFlagBits stage, VkQueryPool q, uint32_t i) {
	REAL(vkCmdWriteTimestamp);
	record(cb, K_QUERYPOOL, q);
	real(cb, stage, q, i);
}

VkResult vkBeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *info) {
	REAL(vkBeginCommandBuffer);
	LOCKED({
		uint64_t h = (uint64_t)(uintptr_t)cb;
		check("vkBeginCommandBuffer", K_CB, h);
		node *c = find(K_CB, h);
		if (c != NULL) {
			c->uses.n = 0;
		}
	});
	return real(cb, info);
}

VkResult vkResetCommandPool(VkDevice device, VkCommandPool pool, VkCommandPoolResetFlags flags) {
	REAL(vkResetCommandPool);
	LOCKED({
		check("vkResetCommandPool", K_CMDPOOL, pool);
		for (size_t b = 0; b < NBUCKETS; b++) {
			for (node *n = buckets[b]; n != NULL; n = n->next) {
				if (n->kind == K_CB && n->parent == pool) {
					n->uses.n = 0;
				}
			}
		}
	});
	return real(device, pool, flags);
}

// ALLOCATE_FN defines name, an allocation of info->count objects from the
// pool info->pool, each tracked as kind under that pool.
#define ALLOCATE_FN(name, Info, Obj, kind, count, pool)                                                                \
	VkResult name(VkDevice device, const Info *info, Obj *out) {                                                       \
		REAL(name);                                                                                                    \
		VkResult r = real(device, info, out);                                                                          \
		if (r == VK_SUCCESS) {                                                                                         \
			LOCKED({                                                                                                   \
				for (uint32_t i = 0; i < info->count; i++) {                                                           \
					track(kind, (uint64_t)(uintptr_t)out[i], info->pool);                                              \
				}                                                                                                      \
			});                                                                                                        \
		}                                                                                                              \
		return r;                                                                                                      \
	}

ALLOCATE_FN(vkAllocateCommandBuffers, VkCommandBufferAllocateInfo, VkCommandBuffer, K_CB, commandBufferCount,
            commandPool)

// Descriptor sets.

ALLOCATE_FN(vkAllocateDescriptorSets, VkDescriptorSetAllocateInfo, VkDescriptorSet, K_SET, descriptorSetCount,
            descriptorPool)

void vkUpdateDescriptorSets(VkDevice device, uint32_t nw, const VkWriteDescriptorSet *w, uint32_t nc,
                            const VkCopyDescriptorSet *c) {
	REAL(vkUpdateDescriptorSets);
	LOCKED({
		for (uint32_t i = 0; i < nw; i++) {
			check("vkUpdateDescriptorSets", K_SET, w[i].dstSet);
			node *s = find(K_SET, w[i].dstSet);
			for (uint32_t j = 0; s != NULL && w[i].pBufferInfo != NULL && j < w[i].descriptorCount; j++) {
				// Kept as (binding, buffer) pairs; a rewrite of a binding
				// adds its new buffer (the old one is then over-counted,
				// which errs towards reporting).
				refs_add(&s->uses, (int)(w[i].dstBinding + w[i].dstArrayElement + j), w[i].pBufferInfo[j].buffer);
			}
		}
	});
	real(device, nw, w, nc, c);
}

// Creation and destruction.

#define CREATE(kind, dev, h, parent) LOCKED({ track(kind, h, parent); counts(dev)[kind]++; })
#define DESTROY(call, kind, dev, h)                                                                                    \
	LOCKED({                                                                                                           \
		if (h != 0) {                                                                                                  \
			check(call, kind, h);                                                                                      \
			untrack(kind, h);                                                                                          \
			counts(dev)[kind]--;                                                                                       \
		}                                                                                                              \
	})

// CREATE_FN defines name, a creation that tracks the object it makes as
// kind, under parent, counted for the device.
#define CREATE_FN(name, Info, Obj, kind, parent)                                                                       \
	VkResult name(VkDevice device, const Info *info, const VkAllocationCallbacks *a, Obj *out) {                       \
		REAL(name);                                                                                                    \
		VkResult r = real(device, info, a, out);                                                                       \
		if (r == VK_SUCCESS) {                                                                                         \
			CREATE(kind, device, *out, parent);                                                                        \
		}                                                                                                              \
		return r;                                                                                                      \
	}

// DESTROY_FN defines name, a destruction of an object of kind that no
// executing submission may still use.
#define DESTROY_FN(name, Obj, kind)                                                                                    \
	void name(VkDevice device, Obj h, const VkAllocationCallbacks *a) {                                                \
		REAL(name);                                                                                                    \
		DESTROY(#name, kind, device, h);                                                                               \
		real(device, h, a);                                                                                            \
	}

CREATE_FN(vkCreateBuffer, VkBufferCreateInfo, VkBuffer, K_BUFFER, 0)
DESTROY_FN(vkDestroyBuffer, VkBuffer, K_BUFFER)

VkResult vkBindBufferMemory(VkDevice device, VkBuffer b, VkDeviceMemory m, VkDeviceSize off) {
	REAL(vkBindBufferMemory);
	LOCKED({
		node *n = find(K_BUFFER, b);
		if (n != NULL) {
			n->parent = m;
		}
	});
	return real(device, b, m, off);
}

CREATE_FN(vkAllocateMemory, VkMemoryAllocateInfo, VkDeviceMemory, K_MEMORY, 0)
DESTROY_FN(vkFreeMemory, VkDeviceMemory, K_MEMORY)
CREATE_FN(vkCreateCommandPool, VkCommandPoolCreateInfo, VkCommandPool, K_CMDPOOL, 0)

void vkDestroyCommandPool(VkDevice device, VkCommandPool p, const VkAllocationCallbacks *a) {
	REAL(vkDestroyCommandPool);
	LOCKED(if (p != 0) untrack_children(K_CB, p));
	DESTROY("vkDestroyCommandPool", K_CMDPOOL, device, p);
	real(device, p, a);
}

CREATE_FN(vkCreateDescriptorPool, VkDescriptorPoolCreateInfo, VkDescriptorPool, K_DESCPOOL, 0)

VkResult vkResetDescriptorPool(VkDevice device, VkDescriptorPool p, VkDescriptorPoolResetFlags flags) {
	REAL(vkResetDescriptorPool);
	LOCKED({
		check("vkResetDescriptorPool", K_DESCPOOL, p);
		untrack_children(K_SET, p);
	});
	return real(device, p, flags);
}

void vkDestroyDescriptorPool(VkDevice device, VkDescriptorPool p, const VkAllocationCallbacks *a) {
	REAL(vkDestroyDescriptorPool);
	LOCKED(if (p != 0) untrack_children(K_SET, p));
	DESTROY("vkDestroyDescriptorPool", K_DESCPOOL, device, p);
	real(device, p, a);
}

CREATE_FN(vkCreateFence, VkFenceCreateInfo, VkFence, K_FENCE, (uint64_t)(uintptr_t)device)

VkResult vkResetFences(VkDevice device, uint32_t n, const VkFence *fences) {
	REAL(vkResetFences);
	LOCKED({
		for (uint32_t i = 0; i < n; i++) {
			check("vkResetFences", K_FENCE, fences[i]);
		}
	});
	return real(device, n, fences);
}

DESTROY_FN(vkDestroyFence, VkFence, K_FENCE)
CREATE_FN(vkCreateQueryPool, VkQueryPoolCreateInfo, VkQueryPool, K_QUERYPOOL, 0)
DESTROY_FN(vkDestroyQueryPool, VkQueryPool, K_QUERYPOOL)

VkResult vkCreateComputePipelines(VkDevice device, VkPipelineCache cache, uint32_t n,
                                  const VkComputePipelineCreateInfo *infos, const VkAllocationCallbacks *a,
                                  VkPipeline *out) {
	REAL(vkCreateComputePipelines);
	VkResult r = real(device, cache, n, infos, a, out);
	for (uint32_t i = 0; r == VK_SUCCESS && i < n; i++) {
		CREATE(K_PIPELINE, device, out[i], 0);
	}
	return r;
}

DESTROY_FN(vkDestroyPipeline, VkPipeline, K_PIPELINE)

void vkDestroyDevice(VkDevice device, const VkAllocationCallbacks *a) {
	REAL(vkDestroyDevice);
	pthread_mutex_lock(&mu);
	int n = 0;
	for (sub *s = pending; s != NULL; s = s->next) {
		n += s->dev == device;
	}
	if (n > 0) {
		report("error: vkDestroyDevice while %d submission(s) were still executing", n);
	}
	complete(device, 0);
	long *live = counts(device);
	char line[400];
	int k = snprintf(line, sizeof(line), "live:");
	for (int i = 0; i < NCOUNTED; i++) {
		k += snprintf(line + k, sizeof(line) - (size_t)k, " %s=%ld", kind_names[i], live[i]);
	}
	report("%s", line);
	for (int i = 0; i < NDEVICES; i++) {
		if (devices[i].dev == device) {
			memset(&devices[i], 0, sizeof(devices[i]));
		}
	}
	pthread_mutex_unlock(&mu);
	real(device, a);
}
