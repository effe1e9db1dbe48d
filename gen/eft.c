/* GLSL error-free transformations for the double-word stores (gen/eft.h). */
#include "gen/eft.h"

/* An intermediate the compiler must not see through: itself where the
 * profile has `precise`, else times eft_one (1, from a uniform the
 * compiler cannot know), which blocks the algebra that cancels an EFT's
 * error term ((a + b) - a -> b) and costs one exact multiply. */
void gen_eft_put(gg_sbuf *sb, bool dbl, bool fma, gg_eft_guard guard)
{
    const char *T = dbl ? "double" : "float", *V = dbl ? "dvec2" : "vec2";
    const char *P = guard == GG_EFT_PRECISE ? "precise " : guard == GG_EFT_MACRO ? "EFT_PRECISE " : "";
    const char *O = guard == GG_EFT_PRECISE ? "" : guard == GG_EFT_MACRO ? " EFT_ONE" : " * eft_one";
    gen_sb_printf(sb, "\n/* error-free transformations over %s (gen/eft.c)%s */\n", T,
                 guard == GG_EFT_PRECISE ? "" : "; eft_one is 1, set in main from uKBase");
    if (guard != GG_EFT_PRECISE)
        gen_sb_printf(sb, "%s eft_one;\n", T);
    gen_sb_printf(sb, "%s two_sum(%s a, %s b)\n{\n"
                     "    %s%s s = (a + b)%s;\n    %s%s bb = (s - a)%s;\n"
                     "    %s%s e = ((a - (s - bb)%s) + (b - bb))%s;\n    return %s(s, e);\n}\n",
                 V, T, T, P, T, O, P, T, O, P, T, O, O, V);
    gen_sb_printf(sb, "%s quick_two_sum(%s a, %s b)\n{\n"
                     "    %s%s s = (a + b)%s;\n    %s%s e = (b - (s - a)%s)%s;\n"
                     "    return %s(s, e);\n}\n",
                 V, T, T, P, T, O, P, T, O, O, V);
    if (fma) {
        gen_sb_printf(sb, "%s two_prod(%s a, %s b)\n{\n"
                         "    %s%s p = a * b;\n    %s%s e = fma(a, b, -p);\n    return %s(p, e);\n}\n",
                     V, T, T, P, T, P, T, V);
    } else {
        const char *split = dbl ? "134217729.0LF" : "4097.0"; /* 2^27 + 1, 2^12 + 1 */
        gen_sb_printf(sb, "%s split(%s a)\n{\n"
                         "    %s%s t = (%s * a)%s;\n    %s%s hi = (t - (t - a)%s)%s;\n"
                         "    %s%s lo = (a - hi)%s;\n    return %s(hi, lo);\n}\n",
                     V, T, P, T, split, O, P, T, O, O, P, T, O, V);
        gen_sb_printf(sb, "%s two_prod(%s a, %s b)\n{\n"
                         "    %s%s p = (a * b)%s;\n    %s%s x = split(a);\n    %s%s y = split(b);\n"
                         "    %s%s e = ((((x.x * y.x)%s - p)%s + (x.x * y.y)%s)%s + (x.y * y.x)%s)%s"
                         " + (x.y * y.y)%s;\n    return %s(p, e);\n}\n",
                     V, T, T, P, T, O, P, V, P, V, P, T, O, O, O, O, O, O, O, V);
    }
    /* Every intermediate in a local of its own: an argument expression
     * is not precise, and once inlined the compiler could reassociate
     * across it. */
    gen_sb_printf(sb, "%s w_add(%s a, %s b)\n{\n"
                     "    %s%s s = two_sum(a.x, b.x);\n    %s%s t = two_sum(a.y, b.y);\n"
                     "    %s%s v = (s.y + t.x)%s;\n    %s%s u = quick_two_sum(s.x, v);\n"
                     "    %s%s w = (u.y + t.y)%s;\n    return quick_two_sum(u.x, w);\n}\n",
                 V, V, V, P, V, P, V, P, T, O, P, V, P, T, O);
    gen_sb_printf(sb, "%s w_mul(%s a, %s b)\n{\n"
                     "    %s%s p = two_prod(a.x, b.x);\n"
                     "    %s%s c = ((a.x * b.y)%s + (a.y * b.x)%s)%s;\n"
                     "    %s%s e = (p.y + c)%s;\n    return quick_two_sum(p.x, e);\n}\n",
                 V, V, V, P, V, P, T, O, O, O, P, T, O);
}
