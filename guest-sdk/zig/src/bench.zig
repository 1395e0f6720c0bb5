//! The guest's share of a counter-source poll, natively: 1,000 records of
//! a `stream-0:<seq>` key and a 100-byte value into a reused SourceBatch,
//! as examples/zig/counter-source does. Prints ns per record.
//!
//!     python -m ziglang run -O ReleaseFast -lc guest-sdk/zig/src/bench.zig
//!
//! (docs/authoring/zig.md, "Performance", compares it with the boundary
//! figure of bench-boundary.)

const std = @import("std");
const batch = @import("batch.zig");
const wire = @import("wire.zig");

const Count = struct {
    pub const connect_name = "copycat.examples.Count";
    stream: []const u8,
    seq: i64,
    even: bool,
    note: ?[]const u8,
};

fn now() u64 {
    var ts: std.c.timespec = undefined;
    // CPU time, not wall time: the machine may be shared.
    if (std.c.clock_gettime(.PROCESS_CPUTIME_ID, &ts) != 0) _ = std.c.clock_gettime(.MONOTONIC, &ts);
    return @as(u64, @intCast(ts.sec)) * 1_000_000_000 + @as(u64, @intCast(ts.nsec));
}

pub fn main() !void {
    const gpa = std.heap.c_allocator;
    var b = batch.SourceBatch.init(gpa);
    defer b.deinit();
    var seq: u64 = 0;
    // BENCH=raw or BENCH=typed for one mode only (timed from outside).
    const only: ?[]const u8 = if (std.c.getenv("BENCH")) |v| std.mem.span(v) else null;
    inline for (.{ false, true }) |typed| if (only == null or std.mem.eql(u8, only.?, if (typed) "typed" else "raw")) {
        const polls = 20_000;
        var best: u64 = std.math.maxInt(u64);
        for (0..5) |_| {
            const t0 = now();
            for (0..polls) |_| {
                b.clear();
                for (0..1000) |_| {
                    const r = try b.begin(.{});
                    if (typed) {
                        var buf: [64]u8 = undefined;
                        const key = std.fmt.bufPrint(&buf, "stream-0:{d}", .{seq}) catch unreachable;
                        try r.keyOf(@as([]const u8, key));
                        var note_buf: [24]u8 = undefined;
                        const note = std.fmt.bufPrint(&note_buf, "n{d}", .{seq}) catch unreachable;
                        try r.valueOf(Count{ .stream = "stream-0", .seq = @intCast(seq), .even = seq % 2 == 0, .note = if (seq % 2 == 0) note else null });
                    } else {
                        const k = try r.key();
                        try k.append("stream-0");
                        try k.byte(':');
                        try k.int(seq);
                        const v = try r.value();
                        try v.int(seq);
                        try v.padTo(100, '.');
                    }
                    try r.end();
                    seq += 1;
                }
                try b.advance("{\"stream\":\"stream-0\"}", "{\"seq\":1}");
                std.mem.doNotOptimizeAway(b.toAbi());
            }
            best = @min(best, now() - t0);
        }
        std.debug.print("{s}: {d:.1} ns/record (best of 5, {d} polls of 1000)\n", .{ if (typed) "typed" else "raw", @as(f64, @floatFromInt(best)) / (polls * 1000.0), polls });
    };
}
