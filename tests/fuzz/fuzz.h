/* fuzz.h: what every fuzz target under tests/fuzz/ defines, and the limits
 * they share. A target is linked either with libFuzzer (make fuzz, clang-14
 * -fsanitize=fuzzer) or with replay.c (any compiler), which runs the files
 * named on its command line through the same function; draw.c is linked
 * into each. */
#ifndef QKV_TEST_FUZZ_H
#define QKV_TEST_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Elements allowed in one tensor while fuzzing: small, so that no input
 * spends long computing (64x64 at most) and the fuzzer explores the
 * language rather than the kernels' speed. */
#define FUZZ_MAX_ELEMS 4096

/* A property every input must keep (not assert: it stays with NDEBUG). */
#define FUZZ_CHECK(cond)                                                                       \
	do {                                                                                   \
		if (!(cond)) {                                                                 \
			fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                               \
		}                                                                              \
	} while (0)

struct tensor;
struct show;

/* Computes what the full-screen program would draw of t (draw.c): heatmap
 * model, layouts and cell texts, the inspector on a few cells, the loop
 * trace of its derivation. s is the lesson's show of it, or NULL. */
void fuzz_draw_tensor(const struct tensor *t, const char *name, const struct show *s);

/* Runs one input; always returns 0 (libFuzzer's contract). A crash, a
 * sanitizer report or a failed FUZZ_CHECK is the finding. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
