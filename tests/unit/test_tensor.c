/* test_tensor.c: unit tests for tensor creation (src/core/tensor.c): the
 * storages a thread reuses come back zero-filled and 64-byte aligned, in
 * every size class and past them, and a view outlives its tensor. */
#include <criterion/criterion.h>

#include "core/tensor.h"

#include <stdint.h>
#include <string.h>

Test(tensor, a_reused_storage_should_come_back_zero_filled_and_aligned)
{
	static const int64_t sizes[] = { 0, 1, 15, 16, 17, 64, 65, 256, 257, 1000 };	/* floats */
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		for (int round = 0; round < 3; round++) {
			struct tensor *t = tensor_new(DT_F32, FLAVOR_TORCH, 1, &sizes[k]);
			cr_assert_eq((uintptr_t)t->storage->data % 64, 0, "%lld floats", (long long)sizes[k]);
			cr_assert_eq(t->storage->nbytes, (size_t)sizes[k] * 4);
			const unsigned char *p = t->storage->data;
			for (size_t i = 0; i < t->storage->nbytes; i++)
				cr_assert_eq(p[i], 0, "%lld floats, round %d, byte %zu", (long long)sizes[k], round, i);
			cr_assert_null(t->from);
			cr_assert_eq(t->refs, 1);
			memset(t->storage->data, 0xff, t->storage->nbytes);	/* dirty it for the next round */
			tensor_unref(t);
		}
	}
}

Test(tensor, a_view_should_keep_the_storage_when_its_tensor_is_gone)
{
	int64_t shape[2] = { 2, 3 };
	struct tensor *t = tensor_new(DT_F64, FLAVOR_NUMPY, 2, shape);
	for (int64_t i = 0; i < 6; i++)
		tensor_set(t, i, (double)i + 0.5);
	struct tensor *v = tensor_alias(t);
	tensor_unref(t);
	struct tensor *other = tensor_new(DT_F64, FLAVOR_NUMPY, 2, shape);	/* may take t's struct */
	for (int64_t i = 0; i < 6; i++)
		cr_assert_eq(tensor_get(v, i), (double)i + 0.5);
	cr_assert_eq(tensor_get(other, 5), 0.0);
	cr_assert_eq(v->shape[1], 3);
	tensor_unref(v);
	tensor_unref(other);
}
