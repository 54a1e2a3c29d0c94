/* SPDX-License-Identifier: MIT */
/* Every game family the tools know, in the order listings show them. */
#include "solver/games/blooms.h"
#include "solver/games/chicken.h"
#include "solver/games/game.h"
#include "solver/games/glorieta.h"
#include "solver/games/havannah.h"
#include "solver/games/landscape.h"
#include "solver/games/mirador.h"
#include "solver/games/taifas.h"

const struct bp_game_ops *const bp_games[] = {
	&bp_taifas_ops, &bp_chicken_ops, &bp_landscape_ops, &bp_glorieta_ops,
	&bp_blooms_ops, &bp_mirador_ops, &bp_havannah_ops,  NULL,
};
