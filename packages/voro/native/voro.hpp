#pragma once
/// @file voro.hpp
/// The whole public API of the @peclet/voro kernel: plain C++17, no Node-API.
///
/// Build every file of this folder with -ffp-contract=off: fused multiply-adds round
/// differently in the two cells that share a face and break the exact face symmetry.

#include "box.hpp"
#include "parallel.hpp"
#include "tessellation.hpp"
#include "validation.hpp"
