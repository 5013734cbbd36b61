/* json.c: JSON output of strings, numbers and tensors (see json.h).
 * Used by cli/eval.c and by text/render.c; never allocates except through
 * the strbuf. */
#include "text/json.h"
#include "core/format.h"

#include <math.h>

void json_put_string(struct strbuf *sb, const char *s)
{
	strbuf_putc(sb, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			strbuf_printf(sb, "\\%c", *p);
		else if (*p == '\n')
			strbuf_puts(sb, "\\n");
		else if (*p == '\t')
			strbuf_puts(sb, "\\t");
		else if (*p < 0x20)
			strbuf_printf(sb, "\\u%04x", *p);
		else
			strbuf_putc(sb, (char)*p);
	}
	strbuf_putc(sb, '"');
}

void json_put_number(struct strbuf *sb, double v, enum dtype dt)
{
	if (dt == DT_BOOL)
		strbuf_puts(sb, v != 0 ? "true" : "false");
	else if (dt == DT_I64)
		strbuf_printf(sb, "%lld", (long long)v);
	else if (isnan(v))
		strbuf_puts(sb, "\"nan\"");
	else if (isinf(v))
		strbuf_puts(sb, v > 0 ? "\"inf\"" : "\"-inf\"");
	else
		format_shortest(sb, v, dt);
}

/* {"shape":[...],"dtype":"...","data":[ : what every tensor object opens with */
static void put_head(struct strbuf *sb, int ndim, const int64_t *shape, enum dtype dt)
{
	strbuf_puts(sb, "{\"shape\":[");
	for (int i = 0; i < ndim; i++)
		strbuf_printf(sb, i ? ",%lld" : "%lld", (long long)shape[i]);
	strbuf_printf(sb, "],\"dtype\":\"%s\",\"data\":[", dtype_name(dt));
}

/* One element: v, or for DT_I64 i, which is exact */
static void put_element(struct strbuf *sb, enum dtype dt, double v, int64_t i)
{
	if (dt == DT_I64)
		strbuf_printf(sb, "%lld", (long long)i);
	else
		json_put_number(sb, v, dt);
}

void json_put_tensor(struct strbuf *sb, const struct tensor *t)
{
	put_head(sb, t->ndim, t->shape, t->dtype);
	int64_t n = tensor_numel(t);
	bool ints = t->dtype == DT_I64;
	for (int64_t i = 0; i < n; i++) {
		if (i)
			strbuf_putc(sb, ',');
		put_element(sb, t->dtype, ints ? 0 : tensor_get(t, i), ints ? tensor_get_i64(t, i) : 0);
	}
	strbuf_puts(sb, "]}");
}

void json_put_scalar(struct strbuf *sb, enum dtype dt, double v, int64_t i)
{
	put_head(sb, 0, NULL, dt);
	put_element(sb, dt, v, i);
	strbuf_puts(sb, "]}");
}
