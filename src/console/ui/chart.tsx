import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface ChartSeries {
  label: string;
  values: number[];
  /** CSS colour of the line. */
  color: string;
}

/**
 * A time-series line chart (uPlot on a canvas) that follows its container's width. The canvas is
 * not readable by assistive technology, so the figure carries a text summary as its label.
 * `integer` charts (counts) label whole-number ticks only: no axis reads half a click.
 */
export function Chart({
  title,
  summary,
  times,
  series,
  format,
  integer = false,
}: {
  title: string;
  summary: string;
  times: number[];
  series: ChartSeries[];
  format: (v: number) => string;
  integer?: boolean;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (el === null) return;
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height: 180,
      legend: { show: series.length > 1 },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: [
        { stroke: '#4a4d55', grid: { stroke: '#e6e8ec' }, ticks: { stroke: '#d5d8de' } },
        {
          stroke: '#4a4d55',
          grid: { stroke: '#e6e8ec' },
          ticks: { stroke: '#d5d8de' },
          size: 72,
          values: (_u, splits) => splits.map((v) => (integer && !Number.isInteger(v) ? '' : format(v))),
        },
      ],
      series: [
        {},
        ...series.map((s) => ({
          label: s.label,
          stroke: s.color,
          width: 2,
          points: { show: times.length < 40 },
          value: (_u: uPlot, v: number | null) => (v === null ? '—' : format(v)),
        })),
      ],
    };
    const plot = new uPlot(opts, [times.map((t) => t / 1000), ...series.map((s) => s.values)], el);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(200, el.clientWidth), height: 180 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [times, series, format, integer]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} role="img" aria-label={`${title}: ${summary}`} />
    </figure>
  );
}
