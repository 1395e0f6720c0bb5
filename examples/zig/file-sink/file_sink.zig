//! file-sink: appends each record's value and "\n" to
//! <directory>/<topic>-<partition>.txt (raw bytes as they are, a typed or
//! schemaless value as compact JSON, a null value as an empty line) and
//! keeps its own offsets in
//! <directory>/<topic>-<partition>.offset ("<next-offset> <file-length>"),
//! written atomically on every flush. `open` truncates the data file to the
//! flushed length and resumes there, so the output is exactly-once whatever
//! the consumer group's offsets say. A record whose value starts with
//! "errant:" (raw bytes, or a typed string) is not written: it goes to the
//! errant record reporter (the connector's dead letter queue),
//! `cc.errant.report`. Behaviour: examples/SPEC.md.
//!
//! Files go through libc (wasi-libc resolves absolute paths against the
//! WASI preopens the operator grants with grants.fs.write).

const std = @import("std");
const cc = @import("copycat");
const libc = std.c;

pub const info: cc.Info = .{
    .name = "file-sink",
    .version = "0.1.0",
    .description = "Appends record values to <directory>/<topic>-<partition>.txt, exactly once",
    .config_def = &.{
        .{ .name = "directory", .type = .string, .required = true, .doc = "Absolute path of the output directory; grant it with grants.fs.write" },
    },
};

pub fn validate(config: cc.Config, problems: *cc.Problems) void {
    problems.check("directory", config.require("directory"));
}

/// One topic partition this task writes.
const Part = struct {
    topic: []u8,
    partition: i32,
    fd: c_int = -1, // the .txt file, opened for appending
    next: i64 = -1, // the next offset, after the last record written; -1: unknown
    dirty: bool = false, // written since the last flush

    fn release(self: *Part) void {
        if (self.fd >= 0) _ = libc.close(self.fd);
        cc.allocator.free(self.topic);
    }
};

const Path = [:0]u8;

fn errno() c_int {
    return libc._errno().*;
}

pub const Task = struct {
    directory: []u8,
    parts: std.ArrayList(Part) = .empty,
    run: std.ArrayList(u8) = .empty, // the bytes of one run of records of one partition
    /// Decoded typed values, freed after each put.
    arena: std.heap.ArenaAllocator = .init(cc.allocator),

    pub fn start(config: cc.Config) cc.Error!Task {
        const dir = std.mem.trimEnd(u8, try config.require("directory"), "/ \t");
        return .{ .directory = try cc.allocator.dupe(u8, if (dir.len == 0) "/" else dir) };
    }

    /// "<directory>/<topic>-<partition><suffix>", NUL-terminated for libc.
    fn path(self: *const Task, topic: []const u8, partition: i32, suffix: []const u8) error{OutOfMemory}!Path {
        return std.fmt.allocPrintSentinel(cc.allocator, "{s}/{s}-{d}{s}", .{ self.directory, topic, partition, suffix }, 0);
    }

    /// An I/O failure (errno `e`) on `p`: retriable when it may pass, fatal
    /// otherwise.
    fn ioError(self: *const Task, e: c_int, what: []const u8, p: []const u8) cc.Error {
        const E = libc.E;
        const transient = switch (@as(E, @fromBackingInt(@intCast(e)))) {
            .AGAIN, .INTR, .BUSY, .IO, .NOSPC, .DQUOT => true,
            else => false,
        };
        if (!cc.fsGranted(p))
            return cc.fatal("{s} {s}: {s} (is {s} granted with grants.fs.write?)", .{ what, p, cc.strerror(e), self.directory });
        if (transient) return cc.retriable("{s} {s}: {s}", .{ what, p, cc.strerror(e) });
        return cc.fatal("{s} {s}: {s}", .{ what, p, cc.strerror(e) });
    }

    fn find(self: *Task, topic: []const u8, partition: i32) ?usize {
        for (self.parts.items, 0..) |p, i|
            if (p.partition == partition and std.mem.eql(u8, p.topic, topic)) return i;
        return null;
    }

    fn findOrAdd(self: *Task, topic: []const u8, partition: i32) error{OutOfMemory}!usize {
        if (self.find(topic, partition)) |i| return i;
        const owned = try cc.allocator.dupe(u8, topic);
        errdefer cc.allocator.free(owned);
        try self.parts.append(cc.allocator, .{ .topic = owned, .partition = partition });
        return self.parts.items.len - 1;
    }

    fn drop(self: *Task, i: usize) void {
        self.parts.items[i].release();
        _ = self.parts.swapRemove(i);
    }

    /// Resume the partitions that have a state file: truncate the data file
    /// to the flushed length and return the next offset.
    pub fn open(self: *Task, partitions: []const cc.TopicPartition, resume_at: *cc.Offsets) cc.Error!void {
        for (partitions) |tp| {
            if (self.find(tp.topic, tp.partition)) |i| self.drop(i); // start afresh from the files

            const state = try self.path(tp.topic, tp.partition, ".offset");
            defer cc.allocator.free(state);
            const fd = libc.open(state, .{ .read = true });
            if (fd < 0) {
                const e = errno();
                if (e == @backingInt(libc.E.NOENT) and cc.fsGranted(state)) continue; // never flushed
                return self.ioError(e, "cannot read", state);
            }
            var buf: [64]u8 = undefined;
            const n = libc.read(fd, &buf, buf.len);
            const read_errno = errno();
            _ = libc.close(fd);
            if (n < 0) return self.ioError(read_errno, "cannot read", state);
            const content = std.mem.trim(u8, buf[0..@intCast(n)], " \t\r\n");
            var fields = std.mem.splitScalar(u8, content, ' ');
            const next = std.fmt.parseInt(i64, fields.next() orelse "", 10) catch -1;
            const length = std.fmt.parseInt(i64, fields.next() orelse "", 10) catch -1;
            if (next < 0 or length < 0 or fields.next() != null)
                return cc.fatal("{s}: '{s}' is not '<next-offset> <file-length>'", .{ state, content });

            const data = try self.path(tp.topic, tp.partition, ".txt");
            defer cc.allocator.free(data);
            const dfd = libc.open(data, .{ .write = true, .CREAT = true }, @as(libc.mode_t, 0o644));
            if (dfd < 0) return self.ioError(errno(), "cannot open", data);
            defer _ = libc.close(dfd);
            if (libc.ftruncate(dfd, length) != 0) return self.ioError(errno(), "cannot truncate", data);

            const i = try self.findOrAdd(tp.topic, tp.partition);
            self.parts.items[i].next = next;
            try resume_at.add(tp.topic, tp.partition, next);
        }
    }

    /// Open partition `p`'s data file for appending, unless it is open.
    fn openData(self: *const Task, p: *Part) cc.Error!void {
        if (p.fd >= 0) return;
        const data = try self.path(p.topic, p.partition, ".txt");
        defer cc.allocator.free(data);
        p.fd = libc.open(data, .{ .write = true, .CREAT = true, .APPEND = true }, @as(libc.mode_t, 0o644));
        if (p.fd < 0) return self.ioError(errno(), "cannot open", data);
    }

    /// Append the run to partition `i`'s data file; on success its next
    /// offset becomes `next`. A failed write is truncated away, so the host
    /// can redeliver the batch.
    fn writeRun(self: *Task, i: usize, next: i64) cc.Error!void {
        defer self.run.clearRetainingCapacity();
        const p = &self.parts.items[i];
        if (self.run.items.len == 0) { // nothing to write, but reported records advance
            if (next > p.next) {
                p.next = next;
                p.dirty = true;
            }
            return;
        }
        try self.openData(p);
        var before: libc.Stat = undefined;
        var e: c_int = if (libc.fstat(p.fd, &before) == 0) 0 else errno();
        if (e == 0) {
            var rest = self.run.items;
            while (rest.len > 0) {
                const n = libc.write(p.fd, rest.ptr, rest.len);
                if (n < 0) {
                    if (errno() == @backingInt(libc.E.INTR)) continue;
                    e = errno();
                    _ = libc.ftruncate(p.fd, before.size);
                    break;
                }
                rest = rest[@intCast(n)..];
            }
        }
        if (e != 0) {
            const data = try self.path(p.topic, p.partition, ".txt");
            defer cc.allocator.free(data);
            return self.ioError(e, "cannot append to", data);
        }
        p.next = next;
        p.dirty = true;
    }

    pub fn put(self: *Task, batch: *const cc.SinkBatch) cc.Error!void {
        var cur: ?usize = null; // the partition of the current run
        var next: i64 = -1;
        self.run.clearRetainingCapacity(); // what a failed put left
        defer _ = self.arena.reset(.retain_capacity);
        for (0..batch.len()) |index| {
            const r = batch.record(index);
            const k = try self.findOrAdd(r.topic, r.partition);
            if (cur != k) {
                if (cur) |i| try self.writeRun(i, next);
                cur = k;
                next = self.parts.items[k].next;
            }
            if (next >= 0 and r.offset < next) continue; // redelivered: already written

            // The line: raw bytes as they are, a typed or schemaless value
            // as compact JSON, null as nothing.
            const line_start = self.run.items.len;
            var text: ?[]const u8 = null; // what may say "errant:"
            if (r.value.raw()) |bytes| {
                try self.run.appendSlice(cc.allocator, bytes);
                text = bytes;
            } else if (!r.value.isNull()) {
                const v = try r.value.decode(self.arena.allocator());
                if (v == .string) text = v.string;
                try cc.wire.writeJson(&self.run, cc.allocator, r.value.schema(), v);
            }
            // A record this sink cannot write goes to the errant record
            // reporter (the dead letter queue); it counts as handled.
            if (text) |t| if (std.mem.startsWith(u8, t, "errant:")) {
                self.run.shrinkRetainingCapacity(line_start);
                cc.errant.report(r.index, t["errant:".len..]) catch return cc.fatal(
                    "the record at topic {s} partition {d} offset {d} could not be reported errant: {s}",
                    .{ r.topic, r.partition, r.offset, cc.errant.message() },
                );
                next = r.offset + 1;
                continue;
            };
            try self.run.append(cc.allocator, '\n');
            next = r.offset + 1;
        }
        if (cur) |i| try self.writeRun(i, next);
    }

    /// Write `content` to `dest` atomically: a temporary file, synced,
    /// renamed over it.
    fn writeAtomically(self: *const Task, dest: Path, content: []const u8) cc.Error!void {
        const tmp = try std.fmt.allocPrintSentinel(cc.allocator, "{s}.tmp", .{dest}, 0);
        defer cc.allocator.free(tmp);
        const fd = libc.open(tmp, .{ .write = true, .CREAT = true, .TRUNC = true }, @as(libc.mode_t, 0o644));
        if (fd < 0) return self.ioError(errno(), "cannot create", tmp);
        const n = libc.write(fd, content.ptr, content.len);
        if (n != @as(isize, @intCast(content.len)) or libc.fsync(fd) != 0) {
            const e = if (n >= 0 and n != @as(isize, @intCast(content.len))) @backingInt(libc.E.NOSPC) else errno();
            _ = libc.close(fd);
            return self.ioError(e, "cannot write", tmp);
        }
        _ = libc.close(fd);
        if (libc.rename(tmp, dest) != 0) return self.ioError(errno(), "cannot rename over the state file", tmp);
    }

    pub fn flush(self: *Task, offsets: []const cc.TopicPartitionOffset) cc.Error!void {
        _ = offsets; // the task keeps its own
        for (self.parts.items) |*p| {
            if (!p.dirty) continue;
            try self.openData(p); // none yet when every record was reported
            var st: libc.Stat = undefined;
            if (libc.fsync(p.fd) != 0 or libc.fstat(p.fd, &st) != 0) {
                const e = errno();
                const data = try self.path(p.topic, p.partition, ".txt");
                defer cc.allocator.free(data);
                return self.ioError(e, "cannot sync", data);
            }
            var buf: [48]u8 = undefined;
            const content = std.fmt.bufPrint(&buf, "{d} {d}", .{ p.next, st.size }) catch unreachable;
            const state = try self.path(p.topic, p.partition, ".offset");
            defer cc.allocator.free(state);
            try self.writeAtomically(state, content);
            p.dirty = false;
        }
    }

    pub fn close(self: *Task, partitions: []const cc.TopicPartition) cc.Error!void {
        for (partitions) |tp| if (self.find(tp.topic, tp.partition)) |i| self.drop(i);
    }

    pub fn stop(self: *Task) void {
        for (self.parts.items) |*p| p.release();
        self.parts.deinit(cc.allocator);
        self.run.deinit(cc.allocator);
        self.arena.deinit();
        cc.allocator.free(self.directory);
    }
};

comptime {
    cc.exportSink(@This());
}
