const svgNamespace = 'http://www.w3.org/2000/svg';
const width = 120;
const height = 28;

/**
 * A small line of a series over a time span, as an SVG image with a text alternative. A null value,
 * or a step longer than `maxStepMs` between two points, breaks the line: no value is made up.
 */
export function sparkline(points: { at: number; value: number | null }[], fromMs: number, toMs: number, maxStepMs: number, label: string): SVGSVGElement {
  const svg = document.createElementNS(svgNamespace, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('class', 'sparkline');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  const values = points.flatMap((point) => (point.value === null ? [] : [point.value]));
  const low = Math.min(0, ...values);
  const high = Math.max(...values, low + 1e-9);
  const x = (at: number) => (((at - fromMs) / (toMs - fromMs)) * width).toFixed(1);
  const y = (value: number) => (height - 2 - ((value - low) / (high - low)) * (height - 4)).toFixed(1);
  let path = '';
  let previous: number | undefined;
  for (const point of points) {
    if (point.value === null) {
      previous = undefined;
      continue;
    }
    const joined = previous !== undefined && point.at - previous <= maxStepMs;
    // A point alone is drawn as a dot (round caps on a zero-length segment).
    path += joined ? `L${x(point.at)} ${y(point.value)}` : `M${x(point.at)} ${y(point.value)}h0`;
    previous = point.at;
  }
  const line = document.createElementNS(svgNamespace, 'path');
  line.setAttribute('d', path);
  svg.append(line);
  return svg;
}
