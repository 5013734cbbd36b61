/* clock.h: the one clock that times computations (the monotonic clock, in
 * milliseconds), for comparisons, timings and progress lines. */
#ifndef QKV_CORE_CLOCK_H
#define QKV_CORE_CLOCK_H

/* Milliseconds since an arbitrary start that never jumps (CLOCK_MONOTONIC):
 * only differences mean anything. */
double clock_now_ms(void);

#endif
