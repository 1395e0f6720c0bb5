// Small live charts (uPlot).

import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Point } from '../lib/history';

function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

/** `12:34:56`, the x axis's labels (one line: the charts cover minutes). */
function clock(sec: number): string {
  const d = new Date(sec * 1000);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

function short(n: number): string {
  if (Math.abs(n) >= 1e6) return `${+(n / 1e6).toFixed(1)}M`;
  if (Math.abs(n) >= 1e3) return `${+(n / 1e3).toFixed(1)}k`;
  return String(+n.toFixed(2));
}

/**
 * A line chart of one field of the points. `compact` draws a sparkline
 * (no axes) for tables. The box keeps its size whatever the data, so
 * nothing moves when data arrives.
 */
export function LiveChart({
  points,
  field,
  width,
  height,
  compact = false,
  label,
  testid,
}: {
  points: Point[] | undefined;
  field: 'rate' | 'lag';
  width: number;
  height: number;
  compact?: boolean;
  label: string;
  testid?: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);

  const data = (): uPlot.AlignedData => {
    const pts = points ?? [];
    return [pts.map((p) => p.t), pts.map((p) => p[field])];
  };

  useEffect(() => {
    if (!host.current) return;
    const stroke = cssVar(field === 'rate' ? '--chart-rate' : '--chart-lag', '#2563eb');
    const axis = { stroke: cssVar('--muted', '#666'), grid: { stroke: cssVar('--grid', '#ddd'), width: 1 }, ticks: { show: false }, size: 40, font: '11px system-ui, sans-serif' };
    const opts: uPlot.Options = {
      width,
      height,
      legend: { show: false },
      cursor: { show: false },
      select: { show: false, left: 0, top: 0, width: 0, height: 0 },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: compact
        ? [{ show: false }, { show: false }]
        : [
            { ...axis, size: 24, space: 70, incrs: [1, 2, 5, 10, 15, 30, 60, 120, 300, 600], values: (_u, vals) => vals.map(clock) },
            { ...axis, size: 48, values: (_u, vals) => vals.map(short) },
          ],
      series: [{}, { label, stroke, width: 1.5, fill: stroke + '22', spanGaps: false, points: { show: false } }],
    };
    if (compact) opts.padding = [2, 0, 2, 0];
    const el = host.current;
    if (!compact) opts.width = Math.max(120, Math.floor(el.clientWidth) || width);
    plot.current = new uPlot(opts, data(), el);
    // A full chart takes its box's width (the box has a fixed height).
    let observer: ResizeObserver | null = null;
    if (!compact && typeof ResizeObserver !== 'undefined') {
      observer = new ResizeObserver((entries) => {
        const w = Math.floor(entries[0].contentRect.width);
        if (w > 0 && plot.current && Math.abs(plot.current.width - w) > 1) plot.current.setSize({ width: w, height });
      });
      observer.observe(el);
    }
    return () => {
      observer?.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [width, height, compact, field]);

  useEffect(() => {
    plot.current?.setData(data());
  }, [points]);

  return <div class={compact ? 'spark' : 'chart'} ref={host} data-testid={testid} role="img" aria-label={label} />;
}
