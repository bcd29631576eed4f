# Sourced by demo.sh and test.sh: compile through ccache where it is
# installed, so that a second build of the same sources (another stage,
# another clone) takes its objects from the cache. ccache hashes the build
# folder's path into builds with debug information unless told not to; paths
# are taken relative to the clone, so a fresh clone anywhere on the machine
# finds the objects an earlier clone compiled (the debug information then
# names that clone's folder).
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
fi
