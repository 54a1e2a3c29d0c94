/* engines and checks may use every lower layer, but never tools. */
#include "solver/games/game.h"
#include "store/store.h"
#include "tools/cli.h"
