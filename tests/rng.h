/* SPDX-License-Identifier: MIT */
/* The tests' pseudo-random numbers: splitmix64, seeded by the test so that every run
 * draws the same sequence. */
#ifndef BP_TESTS_RNG_H
#define BP_TESTS_RNG_H

#include <stdint.h>

static inline uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

#endif
