// Runs every registered test; exit status 1 when any fails.
#include <peclet/testing.hpp>

PECLET_TEST_MAIN()
