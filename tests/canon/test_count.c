/* SPDX-License-Identifier: MIT */
/* Fixed-filling counts against brute force, and Burnside class counts against direct
 * enumeration of canonical fillings on small boards. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "canon/count.h"
#include "canon/symmetry.h"

static unsigned long ipow(unsigned long b, int e)
{
	unsigned long r = 1;
	while (e--)
		r *= b;
	return r;
}

ParameterizedTestParameters(count, fixed_and_classes)
{
	static char names[][8] = { "hex2", "tri3", "tri4", "rh3x3", "rh2x4", "3x3", "2x4", "3x4" };
	return cr_make_param_array(char[8], names, sizeof names / sizeof names[0]);
}

/* Fillings with 3 colours (empty, x, o) of boards of at most 12 cells: brute force
 * over all 3^n fillings. */
ParameterizedTest(char (*name)[8], count, fixed_and_classes)
{
	struct bp_board *b;
	cr_assert_eq(bp_board_create(*name, &b, NULL), BP_OK);
	int n = b->ncells;
	unsigned long total = ipow(3, n);
	mpz_t coef[16], fixed[12], classes;
	for (int k = 0; k <= n; k++)
		mpz_init(coef[k]);
	for (int s = 0; s < b->nsym; s++)
		mpz_init(fixed[s]);
	mpz_init(classes);
	unsigned long canon_by_k[16] = { 0 };
	int digit[16], img[16];
	for (int s = 0; s < b->nsym; s++) {
		cr_assert_eq(bp_count_fixed_fillings(b, s, 2, coef), BP_OK);
		unsigned long brute[16] = { 0 };
		for (unsigned long f = 0; f < total; f++) {
			unsigned long v = f;
			int k = 0;
			for (int c = 0; c < n; c++) {
				digit[c] = (int)(v % 3);
				v /= 3;
				k += digit[c] != 0;
			}
			int same = 1;
			for (int c = 0; c < n; c++)
				same &= digit[bp_board_sym(b, s, c)] == digit[c];
			brute[k] += same;
			if (s == 0) {
				/* canonical if no image is smaller (images read as base-3 numbers) */
				int smallest = 1;
				for (int t = 1; t < b->nsym && smallest; t++) {
					for (int c = 0; c < n; c++)
						img[bp_board_sym(b, t, c)] = digit[c];
					for (int c = n - 1; c >= 0; c--)
						if (img[c] != digit[c]) {
							smallest = img[c] > digit[c];
							break;
						}
				}
				canon_by_k[k] += smallest;
			}
		}
		for (int k = 0; k <= n; k++)
			cr_expect_eq(mpz_get_ui(coef[k]), brute[k], "%s symmetry %d, %d stones",
				     *name, s, k);
	}
	for (int k = 0; k <= n; k++) {
		for (int s = 0; s < b->nsym; s++) {
			cr_assert_eq(bp_count_fixed_fillings(b, s, 2, coef), BP_OK);
			mpz_set(fixed[s], coef[k]);
		}
		bp_count_burnside(classes, (const mpz_t *)fixed, b->nsym);
		cr_expect_eq(mpz_get_ui(classes), canon_by_k[k], "%s classes with %d stones", *name,
			     k);
	}
	for (int k = 0; k <= n; k++)
		mpz_clear(coef[k]);
	for (int s = 0; s < b->nsym; s++)
		mpz_clear(fixed[s]);
	mpz_clear(classes);
	bp_board_destroy(b);
}

Test(count, big_numbers)
{
	/* identity on hex7 with 3 colours: coefficient of z^127 is 3^127 */
	struct bp_board *b;
	cr_assert_eq(bp_board_create("hex7", &b, NULL), BP_OK);
	mpz_t coef[128], want;
	for (int k = 0; k <= 127; k++)
		mpz_init(coef[k]);
	mpz_init(want);
	cr_assert_eq(bp_count_fixed_fillings(b, 0, 3, coef), BP_OK);
	mpz_ui_pow_ui(want, 3, 127);
	cr_expect_eq(mpz_cmp(coef[127], want), 0);
	mpz_bin_uiui(want, 127, 60);
	mpz_t p3;
	mpz_init(p3);
	mpz_ui_pow_ui(p3, 3, 60);
	mpz_mul(want, want, p3);
	cr_expect_eq(mpz_cmp(coef[60], want), 0);
	for (int k = 0; k <= 127; k++)
		mpz_clear(coef[k]);
	mpz_clears(want, p3, NULL);
	bp_board_destroy(b);
}
