/* store may not reach up into the rules or the engines. */
#include "canon/error.h"
#include "solver/games/game.h"
#include "store/codec.h"
