/* html.c: the whole lesson as one HTML page (see export.h). Being written
 * on the html branch; until it lands, an .html export is refused. */
#include "export/export.h"

int export_lesson_html(struct strbuf *out, struct player *p, const struct export_opts *o, struct qkv_error *err)
{
	(void)out;
	(void)p;
	(void)o;
	return error_set(err, 0, 0, "%s", "HTML export is not built yet");
}
