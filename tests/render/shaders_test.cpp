// The shaders the build compiles into render/ (render/embed_shaders.cmake): every file of
// resources/shaders/, byte for byte.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "render/shaders.h"

using namespace tether;

TEST(Shaders, EveryShaderFileIsEmbeddedAsItIs) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TETHER_SHADERS_DIR)) {
    const std::string name = entry.path().filename().string();
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    ASSERT_NE(render::shaderSource(name), nullptr) << name;
    EXPECT_EQ(render::shaderSource(name), text.str()) << name;
    ++files;
  }
  EXPECT_GE(files, 4);  // the meshes' and the lines' vertex and fragment shaders
  EXPECT_EQ(render::shaderSource("none.vert"), nullptr);
}
