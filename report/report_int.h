/* Internal to report/: the figure scripts and their runner. */
#ifndef GLGEMM_REPORT_INT_H
#define GLGEMM_REPORT_INT_H

#include "report/report.h"

/* Script bodies (no terminal or output lines), malloc'd; NULL: no memory. */
char *report_script_fig5(const gg_report_data *d);
char *report_script_fig7(const gg_report_data *d, const gg_findings *f, bool dense);
char *report_script_fig8(const gg_report_data *d, const gg_findings *f);
/* GFLOP/s over outputs per fragment, a series per fetch path and out (the
 * colour the fetch path, the point and dash the out), the cap of out=rt
 * marked; f->outs must have points. */
char *report_script_outputs(const gg_report_data *d, const gg_findings *f);

/* Runs gnuplot on the body with an SVG terminal, output to a temporary
 * file beside out_path, renamed over it when gnuplot succeeded and wrote an
 * SVG.  0, or -1 with one line in err. */
int report_plot_svg(const char *gnuplot, const char *script_body, const char *out_path, char *err,
                size_t errlen);

/* "mc=2x2, mrt=1x1" */
void report_curve_label(char *buf, size_t len, const gg_np_curve *c);

#endif
