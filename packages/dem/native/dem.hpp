#pragma once
/// \file
/// Umbrella header of the `@peclet/dem` kernel: discrete element method for
/// spheres in plain C++17 (no Node-API). Include this one header.

#include "contact_law.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "parallel.hpp"
#include "random_insertion.hpp"
#include "simulation.hpp"
#include "sphere_box_volume.hpp"
#include "validation.hpp"
#include "vec3.hpp"
