/* A deliberately wrong tree for tests/layers.sh: canon may include only canon. */
#include "canon/board.h"
#include "store/store.h"
