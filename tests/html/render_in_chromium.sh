# Sourced by the HTML tests: renders a td report in headless Chromium.
#   render_report TD_TOOL RECORDING ARTEFACT_DIR SCREENSHOT_NAME WIDTHxHEIGHT
# writes the report to $work/report.html (refusing one that refers to the
# network), the DOM after its self-test to $work/dom.html, and a screenshot
# to ARTEFACT_DIR/SCREENSHOT_NAME. $work is a scratch folder removed on exit.
render_report() {
  local tool=$1 recording=$2 artefacts=$3 screenshot=$4 size=$5
  chromium_path > /dev/null || exit 1
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$artefacts"
  "$tool" report "$recording" --html "$work/report.html"
  if grep -q 'https\?://' "$work/report.html"; then
    echo "the report refers to the network" >&2
    exit 1
  fi
  render_page "$work/report.html" "$work/dom.html" "$artefacts/$screenshot" "$size" "$work/profile"
}

# Chromium's path, or a message on stderr and status 1 where it is missing.
chromium_path() {
  command -v chromium || command -v chromium-browser || {
    echo "chromium is not installed (scripts/install-deps.sh installs it)" >&2
    return 1
  }
}

#   render_page PAGE DOM_OUT SCREENSHOT WIDTHxHEIGHT PROFILE_DIR
# The DOM of PAGE#selftest and a screenshot of it, from one load in a window
# of that size (the page's layout, and so its self-test, depends on it). The
# self-test's output is a hidden element, so the screenshot shows the page as
# a reader sees it. One Chromium start per page, not two: a start takes 2-5 s
# here, most of what these tests cost.
render_page() {
  local page=$1 dom=$2 screenshot=$3 size=$4 profile=$5
  timeout 120 "$(chromium_path)" --headless=new --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$profile" --window-size="${size/x/,}" --dump-dom --screenshot="$screenshot" \
    "file://$page#selftest" 2>/dev/null > "$dom"
  test -s "$screenshot"
}
