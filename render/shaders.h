// The GLSL shaders, edited as files in resources/shaders/ and compiled into the library as text
// by the build (render/embed_shaders.cmake), so the installed app needs nothing beside it.
#pragma once

#include <string_view>

namespace tether::render {

// The text of a shader file by its name ("mesh.vert"); nullptr if there is no such file.
const char* shaderSource(std::string_view file);

}  // namespace tether::render
