/* SPDX-License-Identifier: MIT */
/* splitmix64 (Steele, Lea and Flood's SplitMix, 64-bit finalizer): the one seeded
 * sequence of pseudo-random numbers the project draws from (sampled checks, random
 * games, Zobrist tables, the tests), so that a seed names the same sequence
 * everywhere. */
#ifndef BP_CANON_RANDOM_H
#define BP_CANON_RANDOM_H

#include <stdint.h>

/* splitmix64's finalizer: a bijection of 64-bit words that mixes every bit into
 * every other (also a hash of one word). */
static inline uint64_t bp_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* The next number of the sequence whose state is *state (any value to start). */
static inline uint64_t bp_splitmix64(uint64_t *state)
{
	return bp_mix64(*state += 0x9E3779B97F4A7C15ull);
}

#endif
