/* The figures of report.md: gnuplot scripts generated here, run by
 * fork/exec, SVG written to a temporary name and renamed.  See report.h. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report/report_int.h"

/* Runs `gnuplot args...`, stderr collected into msg (first line kept).
 * Returns the exit status, 127 when it could not be started, -1 when no
 * child could be made. */
static int run_prog(const char *prog, const char *arg, char *msg, size_t msglen)
{
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(msg, msglen, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(msg, msglen, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            dup2(devnull, 0);
            dup2(devnull, 1);
        }
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        execlp(prog, prog, arg, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char buf[4096];
    size_t got = 0;
    for (;;) {
        ssize_t r = read(fds[0], buf + got, got + 1 < sizeof buf ? sizeof buf - 1 - got : 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (got + 1 >= sizeof buf) { /* full: drain the rest */
                char sink[512];
                while (read(fds[0], sink, sizeof sink) > 0)
                    ;
            }
            break;
        }
        got += (size_t)r;
    }
    buf[got] = '\0';
    close(fds[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    /* The first non-empty line of gnuplot's complaint. */
    char *line = buf + strspn(buf, " \r\n");
    line[strcspn(line, "\r\n")] = '\0';
    snprintf(msg, msglen, "%s", line);
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    snprintf(msg, msglen, "killed by signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    return -1;
}

int report_gnuplot_check(const char *gnuplot, char *err, size_t errlen)
{
    const char *prog = gnuplot ? gnuplot : "gnuplot";
    char msg[512];
    int rc = run_prog(prog, "--version", msg, sizeof msg);
    if (rc == 127) {
        snprintf(err, errlen, "%s not found: the figures need gnuplot (apt-get install gnuplot-nox, "
                              "or make deps)", prog);
        return -1;
    }
    if (rc != 0) {
        snprintf(err, errlen, "%s --version failed: %s", prog, msg);
        return -1;
    }
    return 0;
}

int report_plot_svg(const char *gnuplot, const char *script_body, const char *out_path, char *err,
                size_t errlen)
{
    if (strchr(out_path, '\'')) {
        snprintf(err, errlen, "cannot plot to %s: a quote in the path", out_path);
        return -1;
    }
    size_t n = strlen(out_path);
    char *tmp_svg = malloc(n + 16), *tmp_gp = malloc(n + 16);
    if (!tmp_svg || !tmp_gp) {
        free(tmp_svg);
        free(tmp_gp);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    snprintf(tmp_svg, n + 16, "%s.tmpXXXXXX", out_path);
    snprintf(tmp_gp, n + 16, "%s.gpXXXXXX", out_path);
    int fs = mkstemp(tmp_svg);
    int fg = fs >= 0 ? mkstemp(tmp_gp) : -1;
    int rc = -1;
    if (fs < 0 || fg < 0) {
        snprintf(err, errlen, "cannot write beside %s: %s", out_path, strerror(errno));
        if (fs >= 0) {
            close(fs);
            unlink(tmp_svg);
        }
        goto out;
    }
    close(fs);
    FILE *f = fdopen(fg, "w");
    if (!f) {
        close(fg);
        snprintf(err, errlen, "cannot write a gnuplot script: %s", strerror(errno));
        goto cleanup;
    }
    fprintf(f, "set terminal svg size 860,500 noenhanced font 'Sans,12' background rgb 'white'\n"
               "set output '%s'\n%s\nset output\n",
            tmp_svg, script_body);
    if (fclose(f) != 0) {
        snprintf(err, errlen, "cannot write a gnuplot script: %s", strerror(errno));
        goto cleanup;
    }
    char msg[512];
    const char *prog = gnuplot ? gnuplot : "gnuplot";
    int st = run_prog(prog, tmp_gp, msg, sizeof msg);
    if (st == 127) {
        snprintf(err, errlen, "%s not found: the figures need gnuplot (apt-get install gnuplot-nox)",
                 prog);
        goto cleanup;
    }
    if (st != 0) {
        snprintf(err, errlen, "%s failed on %s: %s", prog, out_path, msg[0] ? msg : "no message");
        goto cleanup;
    }
    /* gnuplot writes the whole file at `set output`: check it is an SVG. */
    char head[512] = "";
    FILE *s = fopen(tmp_svg, "r");
    size_t got = s ? fread(head, 1, sizeof head - 1, s) : 0;
    head[got] = '\0';
    if (s)
        fclose(s);
    if (!strstr(head, "<svg")) {
        snprintf(err, errlen, "%s wrote no SVG for %s", prog, out_path);
        goto cleanup;
    }
    if (rename(tmp_svg, out_path) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", out_path, strerror(errno));
        goto cleanup;
    }
    rc = 0;
cleanup:
    if (rc)
        unlink(tmp_svg);
    unlink(tmp_gp);
out:
    free(tmp_svg);
    free(tmp_gp);
    return rc;
}

/* ---- the scripts ------------------------------------------------------ */

static void shape_str(char *buf, size_t len, gg_shape s)
{
    snprintf(buf, len, "%dx%d", s.rows, s.cols);
}

void report_curve_label(char *buf, size_t len, const gg_np_curve *c)
{
    char mc[16], mrt[16];
    shape_str(mc, sizeof mc, c->base.mc);
    shape_str(mrt, sizeof mrt, c->base.mrt);
    snprintf(buf, len, "mc=%s, mrt=%s", mc, mrt);
}

char *report_script_fig5(const gg_report_data *d)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    const gg_bench *b = &d->bench;
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < GG_BENCH_ALL_ROWS; i++) {
        const gg_bench_row *r = &b->rows[i];
        if (r->present && r->m.status == GG_OK && r->m.gflops > 0 && !eval_bench_row_model(i)) {
            lo = fmin(lo, r->m.gflops);
            hi = fmax(hi, r->m.gflops);
        }
    }
    /* The bars, in eval_bench_names' order; best-image, best-f16,
     * best-f16x8 and tfjs-webgl only where there is one; not the model
     * rows (another problem). */
    int rows[GG_BENCH_ALL_ROWS], nbars = 0;
    for (int i = 0; i < GG_BENCH_ALL_ROWS; i++)
        if ((!eval_bench_row_optional(i) || b->rows[i].present) && !eval_bench_row_model(i))
            rows[nbars++] = i;
    bool logy = hi > 0 && hi / lo > 30;
    fprintf(f, "set title \"Figure 5 on %s, %dx%dx%d\\nautomatic (best) against manual (presets) "
               "and the CPU BLAS\"\n",
            d->card, d->m, d->n, d->k);
    fprintf(f, "set ylabel 'GFLOP/s%s'\nset style fill solid 0.85 border -1\nset boxwidth 0.6\n"
               "set grid ytics\nset key off\nset xrange [-0.6:%d-0.4]\n",
            logy ? " (log scale)" : "", nbars);
    if (logy)
        fprintf(f, "set logscale y\nset yrange [%g:%g]\n", lo / 4, hi * 4);
    else
        fprintf(f, "set yrange [0:%g]\n", hi > 0 ? hi * 1.2 : 1);
    double base = logy ? lo / 4 : 0;
    fprintf(f, "$d << EOD\n");
    for (int x = 0; x < nbars; x++) {
        int i = rows[x];
        const gg_bench_row *r = &b->rows[i];
        int colour = eval_bench_row_tuned(i) ? 2 : i == GG_BENCH_CPU || i == GG_BENCH_CPU_DGEMM ? 3 : 1;
        bool ok = r->present && r->m.status == GG_OK && r->m.gflops > 0;
        if (ok)
            fprintf(f, "%d \"%s\" %.6g %d \"%.4g\"\n", x, eval_bench_names[i], r->m.gflops, colour,
                    r->m.gflops);
        else
            fprintf(f, "%d \"%s\" NaN %d \"\"\n", x, eval_bench_names[i], colour);
    }
    fprintf(f, "EOD\n");
    for (int x = 0; x < nbars; x++) {
        const gg_bench_row *r = &b->rows[rows[x]];
        if (!r->present)
            fprintf(f, "set label 'no tuning record' at %d,%g center rotate by 90 offset 0,4\n", x,
                    logy ? base * 1.5 : (hi > 0 ? hi * 0.05 : 0.05));
        else if (r->m.status != GG_OK)
            fprintf(f, "set label '%s' at %d,%g center rotate by 90 offset 0,4\n",
                    base_status_name(r->m.status), x, logy ? base * 1.5 : (hi > 0 ? hi * 0.05 : 0.05));
    }
    fprintf(f, "plot $d using 1:3:4:xtic(2) with boxes lc variable, "
               "'' using 1:3:5 with labels offset 0,0.8\n");
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

static void outer_keys(char *buf, size_t len, const gg_variant *v)
{
    snprintf(buf, len, "unroll=%d, profile=%s, compiler=%s, acc=%s%s%s", v->unroll,
             gen_profile_name(v->profile), gen_compiler_name(v->compiler), gen_acc_name(v->acc),
             v->fetch != GG_FETCH_TEXTURE ? ", fetch=" : "",
             v->fetch != GG_FETCH_TEXTURE ? gen_fetch_name(v->fetch) : "");
}

static void curves_block(FILE *f, const gg_np_curve *c, int n, bool mark_all)
{
    for (int i = 0; i < n; i++) {
        fprintf(f, "$c%d << EOD\n", i);
        for (int j = 0; j < c[i].n; j++)
            fprintf(f, "%d %.6g%s\n", c[i].np[j], c[i].gflops[j],
                    mark_all && c[i].all[j] ? " # all" : "");
        fprintf(f, "EOD\n");
    }
    fprintf(f, "plot ");
    for (int i = 0; i < n; i++) {
        char label[64];
        report_curve_label(label, sizeof label, &c[i]);
        fprintf(f, "%s$c%d using 1:2 with linespoints lw 2 pt %d title '%s'", i ? ", " : "", i,
                5 + i, label);
    }
    fprintf(f, "\n");
}

char *report_script_fig7(const gg_report_data *d, const gg_findings *fd, bool dense)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    char outer[GG_VARIANT_TEXT];
    outer_keys(outer, sizeof outer, &fd->base);
    fprintf(f, "set title \"Figure 7%s on %s, %dx%dx%d: GFLOP/s over np %s\\n%s\"\n",
            dense ? "b" : "a", d->card, d->m, d->n, d->k,
            dense ? "1..N" : "in powers of two (last point of a curve: np=all)", outer);
    fprintf(f, "set xlabel 'np (k-steps per pass)'\nset ylabel 'GFLOP/s'\nset grid\n"
               "set key outside right top\nset yrange [0:*]\n");
    if (!dense)
        fprintf(f, "set logscale x 2\n");
    curves_block(f, dense ? fd->c7b : fd->c7a, dense ? fd->n7b : fd->n7a, !dense);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

char *report_script_fig8(const gg_report_data *d, const gg_findings *fd)
{
    char outer[GG_VARIANT_TEXT];
    outer_keys(outer, sizeof outer, &fd->base);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    fprintf(f, "set title \"Figure 8 on %s, %dx%dx%d\\nbest GFLOP/s over np in {2,4,8,16,32} for "
               "each mrt x mc (%s)\"\n",
            d->card, d->m, d->n, d->k, outer);
    fprintf(f, "set style data histograms\nset style histogram clustered gap 1\n"
               "set style fill solid 0.85 border -1\nset datafile missing '?'\n"
               "set ylabel 'GFLOP/s'\nset xlabel 'mc (texel packing)'\nset grid ytics\n"
               "set key outside right top\nset yrange [0:*]\n");
    bool any = false;
    for (int r = 0; r < fd->n_mrt; r++)
        for (int c = 0; c < GG_F8_MC; c++)
            any = any || fd->f8[r][c] >= 0;
    if (!any) {
        /* A tune that held mc to a value outside the figure's set (e.g.
         * --fix mc=4x1) leaves nothing to draw: an empty frame that says so,
         * since gnuplot refuses a plot with no valid point. */
        fprintf(f, "set xrange [0:1]\nset yrange [0:1]\nunset ytics\nunset xtics\n"
                   "set label 1 'no records for mc in {1x1, 1x2, 1x4, 2x2} at this size' "
                   "at graph 0.5, 0.5 center\nplot 2 notitle\n");
        goto done;
    }
    fprintf(f, "$d << EOD\nmc");
    for (int r = 0; r < fd->n_mrt; r++)
        fprintf(f, " mrt=%dx%d", fd->f8_mrt[r].rows, fd->f8_mrt[r].cols);
    fprintf(f, "\n");
    for (int c = 0; c < GG_F8_MC; c++) {
        fprintf(f, "%dx%d", fd->f8_mc[c].rows, fd->f8_mc[c].cols);
        for (int r = 0; r < fd->n_mrt; r++) {
            if (fd->f8[r][c] < 0)
                fprintf(f, " ?");
            else
                fprintf(f, " %.6g", fd->f8[r][c]);
        }
        fprintf(f, "\n");
    }
    fprintf(f, "EOD\nplot for [i=2:%d] $d using i:xtic(1) title columnheader(i)\n", fd->n_mrt + 1);
done:
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

char *report_script_outputs(const gg_report_data *d, const gg_findings *fd)
{
    const gg_outputs_finding *o = fd->outs;
    if (!o)
        return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    static const char *const colour[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                         "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
    _Static_assert(sizeof colour / sizeof *colour == GG_FETCH_COUNT, "a colour for every fetch");
    int qmax = o->cap;
    double gmax = 0;
    for (int fe = 0; fe < GG_FETCH_COUNT; fe++)
        for (int out = 0; out < GG_OUT_COUNT; out++) {
            const gg_outputs_series *s = &o->s[fe][out];
            for (int j = 0; j < s->n; j++) {
                qmax = s->outputs[j] > qmax ? s->outputs[j] : qmax;
                gmax = s->gflops[j] > gmax ? s->gflops[j] : gmax;
            }
        }
    fprintf(f, "set title \"Outputs per fragment on %s, %dx%dx%d\\nbest GFLOP/s at each number "
               "of scalars of C a fragment computes, per fetch path (store=f32)\"\n",
            d->card, d->m, d->n, d->k);
    fprintf(f, "set xlabel 'outputs per fragment (out=rt: render targets x channels; out=image: "
               "blk rows x columns)'\nset ylabel 'GFLOP/s'\nset grid\n"
               "set key outside right top\nset logscale x 2\nset xrange [0.8:%g]\n"
               "set yrange [0:%g]\n",
            qmax * 1.25, gmax > 0 ? gmax * 1.15 : 1);
    fprintf(f, "set arrow 1 from %d, graph 0 to %d, graph 1 nohead dt 3 lc rgb 'gray40'\n"
               "set label 1 'render-target cap: %d' at %d, graph 0.96 right offset -0.5, 0\n",
            o->cap, o->cap, o->cap, o->cap);
    int n = 0;
    for (int fe = 0; fe < GG_FETCH_COUNT; fe++)
        for (int out = 0; out < GG_OUT_COUNT; out++) {
            const gg_outputs_series *s = &o->s[fe][out];
            if (!s->n)
                continue;
            fprintf(f, "$s%d_%d << EOD\n", fe, out);
            for (int j = 0; j < s->n; j++)
                fprintf(f, "%d %.6g\n", s->outputs[j], s->gflops[j]);
            fprintf(f, "EOD\n");
            n++;
        }
    fprintf(f, "plot ");
    int k = 0;
    for (int fe = 0; fe < GG_FETCH_COUNT; fe++)
        for (int out = 0; out < GG_OUT_COUNT; out++) {
            const gg_outputs_series *s = &o->s[fe][out];
            if (!s->n)
                continue;
            fprintf(f, "%s$s%d_%d using 1:2 with linespoints lw 2 lc rgb '%s' pt %d ps 1.2 dt %d "
                       "title 'fetch=%s, out=%s'",
                    k++ ? ", " : "", fe, out, colour[fe], out == GG_OUT_RT ? 7 : 5,
                    out == GG_OUT_RT ? 1 : 2, gen_fetch_name((gg_fetch)fe),
                    gen_out_name((gg_out)out));
        }
    if (!n)
        fprintf(f, "2 notitle");
    fprintf(f, "\n");
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
