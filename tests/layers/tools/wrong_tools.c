/* tools: public headers only, so no game's header and no engine's. */
#include "solver/games/landscape.h"
#include "solver/retrograde.h"
#include "solver/solve.h"
#include "tools/cli.h"
