/* GLSL error-free transformations for the double-word stores (gen/eft.h). */
#include "gen/eft.h"

#include <stdio.h>
#include <string.h>

/* Writes text, in which each G(x) is an intermediate the compiler must not
 * see through: (x) where the profile has `precise` (the local is precise),
 * else eft_opq(x), else EFT_OPQ(x), the macro that is (x) or eft_opq(x) by
 * the extension the shader has. */
static void put_guarded(gg_sbuf *sb, gg_eft_guard guard, const char *text)
{
    const char *g = guard == GG_EFT_PRECISE ? "(" : guard == GG_EFT_ONE ? "eft_opq(" : "EFT_OPQ(";
    for (const char *p = text; *p;) {
        const char *q = strstr(p, "G(");
        size_t n = q ? (size_t)(q - p) : strlen(p);
        gen_sb_printf(sb, "%.*s", (int)n, p);
        if (!q)
            break;
        gen_sb_puts(sb, g);
        p = q + 2;
    }
}

/* Without `precise`, each intermediate goes through eft_opq: its bits
 * xor'd with a zero the compiler cannot know (from eft_one, which main sets
 * to 1 from a uniform).  A float operation cannot see through an integer
 * one, so no algebra reaches across it.  Multiplying by eft_one did not do:
 * Mesa 22.3 (llvmpipe) still rewrote two_sum's a - (s - bb) when a was
 * itself a product with a uniform or constant factor, as every EFT's
 * result is (w_mul's into w_add's); tests/check_wide.c, the wide_df300es
 * test. */
void gen_eft_put(gg_sbuf *sb, bool dbl, bool fma, gg_eft_guard guard)
{
    const char *T = dbl ? "double" : "float", *V = dbl ? "dvec2" : "vec2";
    const char *P = guard == GG_EFT_PRECISE ? "precise " : guard == GG_EFT_MACRO ? "EFT_PRECISE " : "";
    gen_sb_printf(sb, "\n/* error-free transformations over %s (gen/eft.c)%s */\n", T,
                 guard == GG_EFT_PRECISE ? ""
                                         : "; eft_opq(x) is x, through bits xor'd with a zero "
                                           "from eft_one (1, set in main from uKBase)");
    if (guard != GG_EFT_PRECISE) {
        gen_sb_printf(sb, "%s eft_one;\n", T);
        if (dbl)
            gen_sb_puts(sb, "double eft_opq(double x)\n{\n    return packDouble2x32(unpackDouble2x32(x)"
                           " ^ uvec2(floatBitsToUint(float(eft_one)) ^ 0x3f800000u));\n}\n");
        else
            gen_sb_puts(sb, "float eft_opq(float x)\n{\n    return uintBitsToFloat(floatBitsToUint(x)"
                           " ^ (floatBitsToUint(eft_one) ^ 0x3f800000u));\n}\n");
    }
    char t[1024];
    snprintf(t, sizeof t, "%s two_sum(%s a, %s b)\n{\n"
                          "    %s%s s = G(a + b);\n    %s%s bb = G(s - a);\n"
                          "    %s%s e = G((a - G(s - bb)) + (b - bb));\n    return %s(s, e);\n}\n",
             V, T, T, P, T, P, T, P, T, V);
    put_guarded(sb, guard, t);
    snprintf(t, sizeof t, "%s quick_two_sum(%s a, %s b)\n{\n"
                          "    %s%s s = G(a + b);\n    %s%s e = G(b - G(s - a));\n"
                          "    return %s(s, e);\n}\n",
             V, T, T, P, T, P, T, V);
    put_guarded(sb, guard, t);
    if (fma) {
        gen_sb_printf(sb, "%s two_prod(%s a, %s b)\n{\n"
                         "    %s%s p = a * b;\n    %s%s e = fma(a, b, -p);\n    return %s(p, e);\n}\n",
                     V, T, T, P, T, P, T, V);
    } else {
        const char *split = dbl ? "134217729.0LF" : "4097.0"; /* 2^27 + 1, 2^12 + 1 */
        snprintf(t, sizeof t, "%s split(%s a)\n{\n"
                              "    %s%s t = G(%s * a);\n    %s%s hi = G(t - G(t - a));\n"
                              "    %s%s lo = G(a - hi);\n    return %s(hi, lo);\n}\n",
                 V, T, P, T, split, P, T, P, T, V);
        put_guarded(sb, guard, t);
        snprintf(t, sizeof t, "%s two_prod(%s a, %s b)\n{\n"
                              "    %s%s p = G(a * b);\n    %s%s x = split(a);\n    %s%s y = split(b);\n"
                              "    %s%s e = G(G(G(G(x.x * y.x) - p) + G(x.x * y.y)) + G(x.y * y.x))"
                              " + G(x.y * y.y);\n    return %s(p, e);\n}\n",
                 V, T, T, P, T, P, V, P, V, P, T, V);
        put_guarded(sb, guard, t);
    }
    /* Every intermediate in a local of its own: an argument expression
     * is not precise, and once inlined the compiler could reassociate
     * across it. */
    snprintf(t, sizeof t, "%s w_add(%s a, %s b)\n{\n"
                          "    %s%s s = two_sum(a.x, b.x);\n    %s%s t = two_sum(a.y, b.y);\n"
                          "    %s%s v = G(s.y + t.x);\n    %s%s u = quick_two_sum(s.x, v);\n"
                          "    %s%s w = G(u.y + t.y);\n    return quick_two_sum(u.x, w);\n}\n",
             V, V, V, P, V, P, V, P, T, P, V, P, T);
    put_guarded(sb, guard, t);
    snprintf(t, sizeof t, "%s w_mul(%s a, %s b)\n{\n"
                          "    %s%s p = two_prod(a.x, b.x);\n"
                          "    %s%s c = G(G(a.x * b.y) + G(a.y * b.x));\n"
                          "    %s%s e = G(p.y + c);\n    return quick_two_sum(p.x, e);\n}\n",
             V, V, V, P, V, P, T, P, T);
    put_guarded(sb, guard, t);
}
