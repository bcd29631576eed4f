# Sourced by the HTML tests: renders a td report in headless Chromium.
#   render_report TD_TOOL RECORDING ARTEFACT_DIR SCREENSHOT_NAME WIDTHxHEIGHT
# writes the report to $work/report.html (refusing one that refers to the
# network), the DOM after its self-test to $work/dom.html, and a screenshot
# to ARTEFACT_DIR/SCREENSHOT_NAME. $work is a scratch folder removed on exit.
render_report() {
  local tool=$1 recording=$2 artefacts=$3 screenshot=$4 size=$5
  local browser
  browser=$(command -v chromium || command -v chromium-browser || true)
  if [ -z "$browser" ]; then
    echo "chromium is not installed (scripts/install-deps.sh installs it)" >&2
    exit 1
  fi
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$artefacts"
  "$tool" report "$recording" --html "$work/report.html"
  if grep -q 'https\?://' "$work/report.html"; then
    echo "the report refers to the network" >&2
    exit 1
  fi
  local chrome=(timeout 120 "$browser" --headless=new --no-sandbox --disable-gpu --no-first-run
                --user-data-dir="$work/profile")
  "${chrome[@]}" --dump-dom "file://$work/report.html#selftest" 2>/dev/null > "$work/dom.html"
  "${chrome[@]}" --window-size="${size/x/,}" --screenshot="$artefacts/$screenshot" \
    "file://$work/report.html" 2>/dev/null
  test -s "$artefacts/$screenshot"
}
