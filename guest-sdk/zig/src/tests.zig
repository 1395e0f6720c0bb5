//! Unit tests of the SDK's pure parts (the encoder, the decoder, the batch
//! builders and views), byte-exact against batch.wit's value encoding.
//! Run natively: guest-sdk/zig/build.sh --test (or
//! `python -m ziglang test guest-sdk/zig/src/tests.zig`).

const std = @import("std");
const wire = @import("wire.zig");
const abi = @import("abi.zig");
const t = std.testing;
const gpa = t.allocator;

const Schema = wire.Schema;

fn le32(n: u32) [4]u8 {
    return @bitCast(std.mem.nativeToLittle(u32, n));
}

const Count = struct {
    pub const connect_name = "copycat.examples.Count";
    stream: []const u8,
    seq: i64,
    even: bool,
    note: ?[]const u8,
};

test "a struct derived at compile time encodes as batch.wit says" {
    var out: std.ArrayList(u8) = .empty;
    defer out.deinit(gpa);
    try wire.encodeOf(Count, .{ .stream = "s-0", .seq = 4, .even = true, .note = "n4" }, &out, gpa);
    const want = [_]u8{ 3, 0, 0, 0, 's', '-', '0', 4, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 0, 0, 0, 'n', '4' };
    try t.expectEqualSlices(u8, &want, out.items);

    out.clearRetainingCapacity();
    try wire.encodeOf(Count, .{ .stream = "", .seq = -1, .even = false, .note = null }, &out, gpa);
    const want2 = [_]u8{ 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0 };
    try t.expectEqualSlices(u8, &want2, out.items);

    const s = wire.schemaOf(Count);
    try t.expectEqual(wire.Type.@"struct", s.type);
    try t.expectEqualStrings("copycat.examples.Count", s.name.?);
    try t.expectEqual(4, s.fields.len);
    try t.expect(s.fields[3].schema.optional);
    try t.expectEqual(wire.Type.string, s.fields[3].schema.type);
}

const batch = @import("batch.zig");

test "the schema table flattens children first and shares nodes by address" {
    var table = wire.Table.init(gpa);
    defer table.deinit();
    const root = try table.add(wire.schemaOf(Count));
    try t.expectEqual(4, root); // string, int64, boolean, optional string, then the struct
    try t.expectEqual(5, table.nodes.items.len);
    const n = table.nodes.items[root];
    try t.expectEqual(@backingInt(wire.Type.@"struct"), n.type);
    try t.expectEqualSlices(u32, &.{ 0, 1, 2, 3 }, n.children.slice());
    try t.expectEqualStrings("note", n.field_names.slice()[3].slice());
    try t.expectEqualStrings("copycat.examples.Count", n.name.val.slice());
    try t.expect(table.nodes.items[3].optional);
    try t.expectEqual(root, try table.add(wire.schemaOf(Count)));
    try t.expectEqual(0, try table.add(&Schema.string) - 5); // a new address, a new node
    const dec = Schema.decimal(2);
    const d = try table.add(&dec);
    try t.expectEqualStrings("scale", table.nodes.items[d].parameters.slice()[0].f0.slice());
    try t.expectEqualStrings("2", table.nodes.items[d].parameters.slice()[0].f1.slice());
    try t.expectEqual(1, table.nodes.items[d].version.val);
}

test "the checked writer encodes and refuses what does not fit" {
    const point: Schema = .structure("P", &.{
        .{ .name = "x", .schema = &Schema.int32 },
        .{ .name = "tags", .schema = &Schema.array(&Schema.optional_string) },
        .{ .name = "m", .schema = &Schema.map(&Schema.string, &Schema.int16) },
    });
    const opt_point = Schema.optionalOf(point);
    var table = wire.Table.init(gpa);
    defer table.deinit();
    const root = try table.add(&opt_point);
    var out: std.ArrayList(u8) = .empty;
    defer out.deinit(gpa);
    var w = wire.Writer.init(&out, gpa, table.nodes.items, root);
    try w.beginStruct();
    try w.int32(-2);
    try w.beginArray(2);
    try w.string("a");
    try w.writeNull();
    try w.endArray();
    try w.beginMap(1);
    try w.string("k");
    try w.int16(7);
    try w.endMap();
    try w.endStruct();
    try t.expect(w.complete());
    const want = [_]u8{ 1, 0xfe, 0xff, 0xff, 0xff, 2, 0, 0, 0, 1, 1, 0, 0, 0, 'a', 0, 1, 0, 0, 0, 1, 0, 0, 0, 'k', 7, 0 };
    try t.expectEqualSlices(u8, &want, out.items);

    // The same through put(), from a Zig value.
    out.clearRetainingCapacity();
    var w2 = wire.Writer.init(&out, gpa, table.nodes.items, root);
    const M = struct { []const u8, i16 };
    _ = M;
    try w2.beginStruct();
    try w2.put(@as(i32, -2));
    try w2.put(@as([]const ?[]const u8, &.{ "a", null }));
    try w2.beginMap(1);
    try w2.put("k");
    try w2.put(@as(i16, 7));
    try w2.endMap();
    try w2.endStruct();
    try t.expectEqualSlices(u8, &want, out.items);

    // Mismatches.
    var w3 = wire.Writer.init(&out, gpa, table.nodes.items, root);
    try w3.beginStruct();
    try t.expectError(error.Mismatch, w3.int64(1));
    var w4 = wire.Writer.init(&out, gpa, table.nodes.items, root);
    try w4.beginStruct();
    try w4.int32(1);
    try t.expectError(error.Mismatch, w4.endStruct());
    var w5 = wire.Writer.init(&out, gpa, table.nodes.items, 0); // int32, required
    try t.expectError(error.Mismatch, w5.writeNull());
}

test "schemaless values carry a tag before each value" {
    var out: std.ArrayList(u8) = .empty;
    defer out.deinit(gpa);
    var w = wire.Writer.init(&out, gpa, &.{}, null);
    try w.beginMap(1);
    try w.string("a");
    try w.beginArray(3);
    try w.int64(1);
    try w.writeNull();
    try w.boolean(true);
    try w.endArray();
    try w.endMap();
    const want = [_]u8{ 11, 1, 0, 0, 0, 8, 1, 0, 0, 0, 'a', 10, 3, 0, 0, 0, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0, 7, 1 };
    try t.expectEqualSlices(u8, &want, out.items);
    var arena = std.heap.ArenaAllocator.init(gpa);
    defer arena.deinit();
    const v = try wire.decodeDynamic(arena.allocator(), out.items);
    var json: std.ArrayList(u8) = .empty;
    defer json.deinit(gpa);
    try wire.writeJson(&json, gpa, null, v);
    try t.expectEqualStrings("{\"a\":[1,null,true]}", json.items);
    var w2 = wire.Writer.init(&out, gpa, &.{}, null);
    try t.expectError(error.Mismatch, w2.beginStruct());
}

test "decode refuses damaged bytes" {
    var table = wire.Table.init(gpa);
    defer table.deinit();
    const root = try table.add(wire.schemaOf(Count));
    var arena = std.heap.ArenaAllocator.init(gpa);
    defer arena.deinit();
    const ref: wire.SchemaRef = .{ .nodes = table.nodes.items, .index = root };
    try t.expectError(error.Malformed, wire.decode(arena.allocator(), ref, &.{ 9, 0, 0, 0, 'a' }));
    const good = [_]u8{ 1, 0, 0, 0, 'a', 4, 0, 0, 0, 0, 0, 0, 0, 1, 0 };
    _ = try wire.decode(arena.allocator(), ref, &good);
    try t.expectError(error.Malformed, wire.decode(arena.allocator(), ref, &(good ++ [_]u8{0})));
    var bad = good;
    bad[13] = 2; // boolean 2
    try t.expectError(error.Malformed, wire.decode(arena.allocator(), ref, &bad));
    try t.expectError(error.Malformed, wire.decodeDynamic(arena.allocator(), &.{ 10, 0xff, 0xff, 0xff, 0x7f }));
}

/// A source batch as a sink would receive it (the host's view of it).
fn asSink(b: *batch.SourceBatch, topics: []abi.Str, ti: []u32, parts: []i32, offs: []i64, ts: []i64) abi.SinkBatch {
    const a = b.toAbi();
    const n = a.value_lengths.len;
    for (0..n) |i| {
        ti[i] = 0;
        parts[i] = 0;
        offs[i] = @intCast(i);
        ts[i] = if (a.timestamps.len > 0) a.timestamps.slice()[i] else -1;
    }
    return .{
        .data = a.data,
        .key_lengths = a.key_lengths,
        .value_lengths = a.value_lengths,
        .topics = .of(topics),
        .topic_indices = .of(ti[0..n]),
        .partitions = .of(parts[0..n]),
        .offsets = .of(offs[0..n]),
        .timestamps = .of(ts[0..n]),
        .header_counts = a.header_counts,
        .header_key_lengths = a.header_key_lengths,
        .header_value_lengths = a.header_value_lengths,
        .schemas = a.schemas,
        .key_schemas = a.key_schemas,
        .value_schemas = a.value_schemas,
        .header_schemas = a.header_schemas,
    };
}

test "a source batch packs records into one buffer and its columns" {
    var b = batch.SourceBatch.init(gpa);
    defer b.deinit();
    // Raw bytes, no optional column set: those columns stay empty.
    for (0..2) |seq| {
        const r = try b.begin(.{});
        const k = try r.key();
        try k.append("s-0:");
        try k.int(seq);
        const v = try r.value();
        try v.int(seq);
        try v.padTo(5, '.');
        try r.end();
    }
    try b.advance("{\"stream\":\"s-0\"}", "{\"seq\":0}");
    try b.advance("{\"stream\":\"s-0\"}", "{\"seq\":1}");
    var a = b.toAbi();
    try t.expectEqualStrings("s-0:00....s-0:11....", a.data.slice());
    try t.expectEqualSlices(i32, &.{ 5, 5 }, a.key_lengths.slice());
    try t.expectEqualSlices(i32, &.{ 5, 5 }, a.value_lengths.slice());
    inline for (.{ "topic_indices", "partitions", "timestamps", "header_counts", "key_schemas", "value_schemas", "schemas", "topics" }) |f|
        try t.expectEqual(0, @field(a, f).len);
    try t.expectEqual(1, a.positions.len);
    try t.expectEqualStrings("{\"seq\":1}", a.positions.slice()[0].offset.slice());

    // A third record with a topic, a typed key and value, a header and a
    // tombstone fourth: the optional columns fill in for the earlier ones.
    const r = try b.begin(.{ .topic = "other", .timestamp = 77 });
    const w = try r.keyTyped(&Schema.string);
    try w.string("k");
    try r.valueOf(Count{ .stream = "s", .seq = 3, .even = false, .note = null });
    try r.headerBytes("h", "v");
    try r.headerBytes("n", null);
    try r.end();
    const r4 = try b.begin(.{ .partition = 2 });
    try r4.keyBytes("t");
    try r4.end();
    a = b.toAbi();
    try t.expectEqualSlices(i32, &.{ -1, -1, 0, -1 }, a.topic_indices.slice());
    try t.expectEqualStrings("other", a.topics.slice()[0].slice());
    try t.expectEqualSlices(i64, &.{ -1, -1, 77, -1 }, a.timestamps.slice());
    try t.expectEqualSlices(i32, &.{ -1, -1, -1, 2 }, a.partitions.slice());
    try t.expectEqualSlices(u32, &.{ 0, 0, 2, 0 }, a.header_counts.slice());
    try t.expectEqualSlices(u32, &.{ 1, 1 }, a.header_key_lengths.slice());
    try t.expectEqualSlices(i32, &.{ 1, -1 }, a.header_value_lengths.slice());
    try t.expectEqual(0, a.header_schemas.len);
    try t.expectEqualSlices(i32, &.{ -1, -1, 0, -1 }, a.key_schemas.slice());
    try t.expectEqualSlices(i32, &.{ -1, -1, 5, -1 }, a.value_schemas.slice());
    try t.expectEqualSlices(i32, &.{ 5, 5, 5, 1 }, a.key_lengths.slice());
    try t.expectEqualSlices(i32, &.{ 5, 5, 15, -1 }, a.value_lengths.slice());
    try t.expectEqual(6, a.schemas.len);

    // Read back through the sink's view.
    var topics = [_]abi.Str{abi.str("t")};
    var ti: [4]u32 = undefined;
    var parts: [4]i32 = undefined;
    var offs: [4]i64 = undefined;
    var ts: [4]i64 = undefined;
    const sb = asSink(&b, &topics, &ti, &parts, &offs, &ts);
    var view = batch.SinkView.init(gpa);
    defer view.deinit();
    try view.load(&sb);
    try t.expectEqual(4, view.len());
    const r1 = view.record(1);
    try t.expectEqualStrings("s-0:1", r1.key.raw().?);
    try t.expectEqualStrings("1....", r1.value.raw().?);
    const r3 = view.record(2);
    try t.expectEqual(77, r3.timestamp.?);
    try t.expectEqual(2, r3.headerCount());
    try t.expectEqualStrings("h", r3.header(0).key);
    try t.expectEqualStrings("v", r3.header(0).value.raw().?);
    try t.expect(r3.header(1).value.isNull());
    var arena = std.heap.ArenaAllocator.init(gpa);
    defer arena.deinit();
    const v = try r3.value.decode(arena.allocator());
    var json: std.ArrayList(u8) = .empty;
    defer json.deinit(gpa);
    try wire.writeJson(&json, gpa, r3.value.schema(), v);
    try t.expectEqualStrings("{\"stream\":\"s\",\"seq\":3,\"even\":false,\"note\":null}", json.items);
    const kv = try r3.key.decode(arena.allocator());
    try t.expectEqualStrings("k", kv.string);
    try t.expect(view.record(3).value.isNull());

    // Clearing keeps the memory and empties every column.
    const cap = b.cols.data.capacity;
    b.clear();
    try t.expectEqual(0, b.len());
    try t.expectEqual(cap, b.cols.data.capacity);
    try t.expectEqual(0, b.toAbi().positions.len);
}

test "a record that fails is taken back out of the batch" {
    var b = batch.SourceBatch.init(gpa);
    defer b.deinit();
    try b.add(.{}, "k", "v");
    const r = try b.begin(.{});
    try r.keyBytes("zzz");
    const w = try r.valueTyped(&Schema.int32);
    try t.expectError(error.Mismatch, w.string("no"));
    try t.expectError(error.Usage, r.end()); // incomplete typed value
    try t.expectEqual(1, b.len());
    try t.expectEqualStrings("kv", b.toAbi().data.slice());
    // The key after the value is refused.
    const r2 = try b.begin(.{});
    try r2.valueBytes("x");
    try t.expectError(error.Usage, r2.keyBytes("late"));
    try t.expectEqual(1, b.len());
    try t.expectError(error.Usage, b.begin(.{ .partition = -3 }));
    try b.add(.{}, null, null);
    try t.expectEqualSlices(i32, &.{ 1, -1 }, b.toAbi().value_lengths.slice());
}

test "a transform's output reuses the input's topics and schemas" {
    // The input: two records, a typed string value and a raw one.
    var src = batch.SourceBatch.init(gpa);
    defer src.deinit();
    const r = try src.begin(.{});
    try r.keyBytes("a");
    try r.valueOf(@as([]const u8, "hello"));
    try r.headerBytes("h", "x");
    try r.end();
    try src.add(.{}, null, "raw");
    var topics = [_]abi.Str{abi.str("t")};
    var ti: [2]u32 = undefined;
    var parts: [2]i32 = undefined;
    var offs: [2]i64 = undefined;
    var ts: [2]i64 = undefined;
    const sb = asSink(&src, &topics, &ti, &parts, &offs, &ts);
    const rb: abi.RecordBatch = .{
        .data = sb.data,
        .key_lengths = sb.key_lengths,
        .value_lengths = sb.value_lengths,
        .topics = sb.topics,
        .topic_indices = sb.topic_indices,
        .partitions = sb.partitions,
        .timestamps = sb.timestamps,
        .offsets = sb.offsets,
        .header_counts = sb.header_counts,
        .header_key_lengths = sb.header_key_lengths,
        .header_value_lengths = sb.header_value_lengths,
        .schemas = sb.schemas,
        .key_schemas = sb.key_schemas,
        .value_schemas = sb.value_schemas,
        .header_schemas = sb.header_schemas,
    };
    var in = batch.TransformView.init(gpa);
    defer in.deinit();
    try in.load(&rb);
    var out = batch.TransformOutput.init(gpa);
    defer out.deinit();
    try out.reset(&in);
    var arena = std.heap.ArenaAllocator.init(gpa);
    defer arena.deinit();
    // Record 0: value upper-cased under its own schema; record 1 as is.
    const rec = in.record(0);
    const o = try out.begin(0);
    try o.keyFrom(rec.key);
    var v = try rec.value.decode(arena.allocator());
    const up = try arena.allocator().dupe(u8, v.string);
    for (up) |*ch| ch.* = std.ascii.toUpper(ch.*);
    v = .{ .string = up };
    const w = try o.valueUnder(rec.value.schema().?);
    try w.value(v);
    const h = rec.header(0);
    try o.headerFrom(h.key, h.value);
    try o.end();
    try out.pass(1);
    try t.expectError(error.Usage, out.begin(0)); // origins never decrease
    const a = out.toAbi();
    try t.expectEqualSlices(u32, &.{ 0, 1 }, a.origins.slice());
    try t.expectEqualStrings("a" ++ [_]u8{ 5, 0, 0, 0 } ++ "HELLOhxraw", a.data.slice());
    try t.expectEqualSlices(i32, &.{ 0, -1 }, a.value_schemas.slice());
    try t.expectEqualSlices(i64, &.{ 0, 1 }, a.offsets.slice());
    try t.expectEqualSlices(u32, &.{ 0, 0 }, a.topic_indices.slice());
    try t.expectEqualSlices(u32, &.{ 1, 0 }, a.header_counts.slice());
    try t.expectEqual(sb.schemas.len, a.schemas.len);
}

test "JSON escapes strings, renders bytes as base64 and non-string map keys as JSON text" {
    var json: std.ArrayList(u8) = .empty;
    defer json.deinit(gpa);
    var entries = [_]wire.Entry{.{ .key = .{ .int32 = 3 }, .value = .{ .bytes = &.{ 0, 255, 1 } } }};
    var items = [_]wire.Value{ .{ .string = "q\"\\\n\x01é" }, .{ .map = &entries } };
    try wire.writeJson(&json, gpa, null, .{ .array = &items });
    try t.expectEqualStrings("[\"q\\\"\\\\\\n\\u0001é\",{\"3\":\"AP8B\"}]", json.items);
}

test "decimal digits" {
    var buf: [24]u8 = undefined;
    try t.expectEqualStrings("0", batch.decimal(&buf, @as(u64, 0)));
    try t.expectEqualStrings("-9223372036854775808", batch.decimal(&buf, @as(i64, std.math.minInt(i64))));
    try t.expectEqualStrings("18446744073709551615", batch.decimal(&buf, @as(u64, std.math.maxInt(u64))));
}

test "typed headers fill the header schema column; a null of a schema has length -1" {
    var b = batch.SourceBatch.init(gpa);
    defer b.deinit();
    const r = try b.begin(.{});
    try r.headerBytes("raw", "x");
    try r.headerOf("n", @as(i32, 7));
    const w = try r.headerSchemaless("s");
    try w.string("q");
    try r.end();
    const r2 = try b.begin(.{});
    try r2.valueNullOf(&Schema.optional_float64);
    try r2.end();
    try t.expectError(error.Mismatch, (try b.begin(.{})).valueNullOf(&Schema.float64));
    const a = b.toAbi();
    try t.expectEqualSlices(i32, &.{ -1, 0, -2 }, a.header_schemas.slice());
    try t.expectEqualSlices(i32, &.{ 1, 4, 6 }, a.header_value_lengths.slice());
    try t.expectEqualSlices(u32, &.{ 3, 0 }, a.header_counts.slice());
    try t.expectEqualSlices(i32, &.{ -1, -1 }, a.value_lengths.slice());
    try t.expectEqualSlices(i32, &.{ -1, 1 }, a.value_schemas.slice());
    try t.expectEqualStrings("rawx" ++ "n" ++ [_]u8{ 7, 0, 0, 0 } ++ "s" ++ [_]u8{ 8, 1, 0, 0, 0 } ++ "q", a.data.slice());
}

test "floats, decimals and logical types encode as their physical type" {
    var table = wire.Table.init(gpa);
    defer table.deinit();
    const dec = Schema.decimal(2);
    const d = try table.add(&dec);
    const f = try table.add(&Schema.float32);
    const ts = try table.add(&Schema.timestamp);
    var out: std.ArrayList(u8) = .empty;
    defer out.deinit(gpa);
    var w = wire.Writer.init(&out, gpa, table.nodes.items, d);
    try w.bytes(&.{ 0x04, 0xd2 }); // 1234 unscaled: 12.34
    var w2 = wire.Writer.init(&out, gpa, table.nodes.items, f);
    try w2.float32(1.5);
    var w3 = wire.Writer.init(&out, gpa, table.nodes.items, ts);
    try w3.int64(1_700_000_000_000);
    const want = [_]u8{ 2, 0, 0, 0, 0x04, 0xd2 } ++ [_]u8{ 0, 0, 0xc0, 0x3f } ++ [_]u8{ 0x00, 0x68, 0xe5, 0xcf, 0x8b, 0x01, 0, 0 };
    try t.expectEqualSlices(u8, &want, out.items);
    var arena = std.heap.ArenaAllocator.init(gpa);
    defer arena.deinit();
    const v = try wire.decode(arena.allocator(), .{ .nodes = table.nodes.items, .index = ts }, out.items[10..]);
    try t.expectEqual(1_700_000_000_000, v.int64);
    try t.expectEqualStrings(Schema.timestamp_name, (wire.SchemaRef{ .nodes = table.nodes.items, .index = ts }).name().?);
}

test "a view refuses a batch whose columns disagree" {
    var topics = [_]abi.Str{abi.str("t")};
    var kl = [_]i32{ 1, 1 };
    var vl = [_]i32{ 1, 5 }; // 7 bytes, the data has 4
    var ti = [_]u32{ 0, 0 };
    var parts = [_]i32{ 0, 0 };
    var offs = [_]i64{ 0, 1 };
    var ts = [_]i64{ -1, -1 };
    var data = "abcd".*;
    var raw: abi.SinkBatch = .{
        .data = .of(&data),
        .key_lengths = .of(&kl),
        .value_lengths = .of(&vl),
        .topics = .of(&topics),
        .topic_indices = .of(&ti),
        .partitions = .of(&parts),
        .offsets = .of(&offs),
        .timestamps = .of(&ts),
    };
    var view = batch.SinkView.init(gpa);
    defer view.deinit();
    try t.expectError(error.Malformed, view.load(&raw));
    vl[1] = 1;
    try view.load(&raw);
    try t.expectEqualStrings("d", view.record(1).value.raw().?);
    ti[1] = 3; // no such topic
    try t.expectError(error.Malformed, view.load(&raw));
}
