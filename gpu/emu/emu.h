// The kernel emulator's C interface (see runtime.cc).
#ifndef TUMBLE_EMU_H
#define TUMBLE_EMU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uintptr_t tb_alloc(size_t size);
void tb_free(uintptr_t p);
int tb_check(char *err, int errlen);
int tb_launch(const char *name, unsigned grid, unsigned block, void **params, const size_t *sizes, int nparams,
              char *err, int errlen);
int tb_has_kernel(const char *name);
void tb_set_reverse(int on);
// tb_kernel_params writes up to max of the kernel's parameter sizes to sizes and returns how many
// parameters it has, or -1 when there is no such kernel.
int tb_kernel_params(const char *name, size_t *sizes, int max);
// tb_sizeof, tb_fields and tb_offsetof report a registered structure's layout (layout.h): its size
// (0 when unknown), its number of fields (-1 when unknown) and a field's offset (-1 when unknown).
size_t tb_sizeof(const char *name);
int tb_fields(const char *name);
long tb_offsetof(const char *name, const char *field);
const char *tb_sources(void);

// tb_addr turns a buffer's address back into a pointer (for Go, where vet rightly distrusts the cast).
static inline void *tb_addr(uintptr_t p) { return (void *)p; }

#ifdef __cplusplus
}
#endif

#endif
