/* json.c: JSON output of strings, numbers and tensors (see json.h).
 * Used by main.c's eval and by text/render.c; never allocates except through
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

void json_put_tensor(struct strbuf *sb, const struct tensor *t)
{
	strbuf_puts(sb, "{\"shape\":[");
	for (int i = 0; i < t->ndim; i++)
		strbuf_printf(sb, i ? ",%lld" : "%lld", (long long)t->shape[i]);
	strbuf_printf(sb, "],\"dtype\":\"%s\",\"data\":[", dtype_name(t->dtype));
	int64_t n = tensor_numel(t);
	for (int64_t i = 0; i < n; i++) {
		if (i)
			strbuf_putc(sb, ',');
		if (t->dtype == DT_I64)
			strbuf_printf(sb, "%lld", (long long)tensor_get_i64(t, i));
		else
			json_put_number(sb, tensor_get(t, i), t->dtype);
	}
	strbuf_puts(sb, "]}");
}
