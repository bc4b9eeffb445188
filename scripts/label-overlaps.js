// Run in a report page by Chromium (scripts/report-screenshots.sh --check and
// the "chromium" ctest): finds every label of the page's SVG pictures that
// prints over another label, a bar or a mark, with Chromium's own text boxes
// (not locksim's estimate of them), and writes one line per overlap into a
// <pre id="label-overlaps"> at the end of the page, or "none".
(() => {
  const obstacles = 'rect.lease, rect.belief, rect.fault, circle.write, circle.effect, circle.read';
  // A lease's token is written inside its own bar, a crash's mark on its belief's end.
  const insideOnPurpose = new Set(['token', 'crash-mark']);
  const tolerance = 0.5;  // anti-aliasing: boxes that touch do not overlap
  const overlap = (a, b) =>
    a.x < b.x + b.width - tolerance && b.x < a.x + a.width - tolerance &&
    a.y < b.y + b.height - tolerance && b.y < a.y + a.height - tolerance;
  const words = (text) => (text.firstChild && text.firstChild.nodeValue || '').trim();
  const found = [];
  document.querySelectorAll('svg').forEach((svg, picture) => {
    const labels = [...svg.querySelectorAll(':scope > text')]
      .map((text) => ({words: words(text), kind: text.getAttribute('class') || '', box: text.getBBox()}))
      .filter((label) => label.words !== '');
    const shapes = [...svg.querySelectorAll(obstacles)].map((shape) => shape.getBBox());
    labels.forEach((label, index) => {
      labels.slice(index + 1).forEach((other) => {
        if (overlap(label.box, other.box)) found.push(`picture ${picture + 1}: "${label.words}" over "${other.words}"`);
      });
      if (insideOnPurpose.has(label.kind)) return;
      shapes.forEach((shape) => {
        if (overlap(label.box, shape)) {
          found.push(`picture ${picture + 1}: "${label.words}" over a bar or mark at x ${Math.round(shape.x)}`);
        }
      });
    });
  });
  const out = document.createElement('pre');
  out.id = 'label-overlaps';
  out.textContent = found.length === 0 ? 'none' : found.join('\n');
  document.body.appendChild(out);
})();
