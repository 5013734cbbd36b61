/* exercise.h: judging what a student typed against an exercise's answer.
 * Used by the prompt's session (every value a line makes) and by qkv check
 * (an exercise's solution). A prediction (`"predict": true`) is answered by
 * typing a value: a number, a nested list of numbers or a tensor. */
#ifndef QKV_LESSON_EXERCISE_H
#define QKV_LESSON_EXERCISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lesson/lesson.h"

struct interp;
struct tensor;
struct value;

/* How a student's tensor compares with an exercise's expected one. */
struct answer_check {
	bool pass;
	bool shape_ok;           /* the same shape, or one element each */
	int64_t nbad;            /* cells off by more than the tolerance */
	int64_t bad[8];          /* the first of them, as flat indices */
	int nlisted;
	double max_diff;
};
void answer_compare(const struct tensor *got, const struct tensor *want, double tol, struct answer_check *out);

/* The tensor a value stands for as an answer (a new reference): a tensor
 * itself; a bool, int or float as a 0-d tensor; a rectangular list or tuple
 * of numbers, nested up to 4 deep, as a tensor of that shape. NULL for
 * anything else (a string, a ragged list, a module). */
struct tensor *answer_tensor(const struct value *v);

/* "Predict" or "Exercise": what the screen calls x. */
const char *exercise_kind(const struct exercise *x);

/* A verdict, from the least to the most telling. */
enum verdict {
	VERDICT_NONE = -1,       /* the answer gives no tensor or number, or got stands for none */
	VERDICT_SHAPE,           /* "Not yet: the answer has shape [2], yours [3]" */
	VERDICT_NOT_YET,         /* the right shape: which cells differ, or how far off a number is */
	VERDICT_RIGHT,           /* "✓ Exercise solved: ASK" or "✓ Predicted right: ASK" */
};

/* Judges a student's value against exercise x, whose answer is evaluated in
 * ws (the step's workspace, left as it was), with msg saying the verdict
 * (nothing for VERDICT_NONE). */
enum verdict exercise_judge(struct interp *ws, const struct exercise *x, const struct value *got, char *msg,
			    size_t size);

#endif
