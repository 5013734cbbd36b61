/* json.h: writing values as JSON for `qkv eval --json` and `qkv run --json`.
 * A tensor is {"shape":[...],"dtype":"float32","data":[...]} with its data
 * flat in row-major order, shortest round-trip digits, and "-inf", "inf",
 * "nan" as strings. Pure: appends to a strbuf. */
#ifndef QKV_TEXT_JSON_H
#define QKV_TEXT_JSON_H

#include "core/strbuf.h"
#include "core/tensor.h"

void json_put_string(struct strbuf *sb, const char *s);
void json_put_number(struct strbuf *sb, double v, enum dtype dt);
void json_put_tensor(struct strbuf *sb, const struct tensor *t);
/* A number as a 0-d tensor, {"shape":[],"dtype":"float64","data":[2.5]}:
 * v is its value, or for DT_I64 i is, exactly. */
void json_put_scalar(struct strbuf *sb, enum dtype dt, double v, int64_t i);

#endif
