// Runs every registered test; exit status 1 when any fails.
#include "test_framework.hpp"

PECLET_TEST_MAIN()
