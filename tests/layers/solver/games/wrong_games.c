/* the rules may not include the store or an engine. */
#include "canon/rank.h"
#include "solver/games/game.h"
#include "solver/solve.h"
#include "store/store.h"
