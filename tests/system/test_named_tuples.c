/* test_named_tuples.c: torch's named tuples (x.max(dim), topk) and numpy's
 * scalar types as a student meets them at the full screen's prompt (tmux,
 * 80x24 with NO_COLOR, and 120x40): the tuple on the three lines torch
 * prints it on, its values drawn in the view, its parts unpacked and printed
 * beside np.float32(0.1). */
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void named_tuple_on_screen(int w, int h, const char *env)
{
	char state[128];
	snprintf(state, sizeof state, "/tmp/qkv-tuple-state-%d", (int)getpid());
	const char *session = tmux_start_qkv(w, h, state, env, "--repl", "sleep 30");
	free(tmux_see(session, ">>>"));
	tmux_line(session, "x = torch.tensor([[1., 3.], [2., 0.]])");
	tmux_line(session, "x.max(dim=1)");
	/* the view draws the values, the tensor the statement made */
	char *s = tmux_see(session, "x.max(dim=1)  (2, float32)");
	const char *tuple = strstr(s, "torch.return_types.max(\n values=tensor([3., 2.]),\n indices=tensor([1, 0]))");
	cr_expect(tuple, "the named tuple is not on three lines as torch prints it:\n%s", s);
	free(s);
	tmux_line(session, "v, i = torch.topk(x.flatten(), 2); print(v, i, i[0].item(), np.float32(0.1))");
	free(tmux_see(session, "tensor([3., 2.]) tensor([1, 2]) 1 0.1"));
	tmux_private_server_end();
	dir_remove(state);
}

Test(named_tuples, max_over_a_dim_at_the_prompt_should_print_and_unpack_as_torch)
{
	named_tuple_on_screen(80, 24, "NO_COLOR=1");
	named_tuple_on_screen(120, 40, NULL);
}
