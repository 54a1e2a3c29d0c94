/* SPDX-License-Identifier: MIT */
/* The tests' pseudo-random numbers: splitmix64, seeded by the test so that every run
 * draws the same sequence. */
#ifndef BP_TESTS_RNG_H
#define BP_TESTS_RNG_H

#include <stdint.h>

#include "canon/random.h"

static inline uint64_t splitmix64(uint64_t *state)
{
	return bp_splitmix64(state);
}

#endif
