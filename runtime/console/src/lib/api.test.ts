import { describe, expect, it } from 'vitest';
import { ApiError, conn, describeError, errorMessage, plugin, ui } from './api';
import { pluginNames } from './plugins';

describe('errorMessage', () => {
  it("reads Kafka Connect's error body", () => {
    expect(errorMessage(404, 'Not Found', '{"error_code":404,"message":"Connector x not found"}')).toBe('Connector x not found');
  });
  it('falls back to short text, then to the status', () => {
    expect(errorMessage(500, 'Internal Server Error', 'boom')).toBe('boom');
    expect(errorMessage(502, 'Bad Gateway', '<html>…</html>')).toBe('HTTP 502 Bad Gateway');
    expect(errorMessage(500, '', '')).toBe('HTTP 500');
  });
});

describe('describeError', () => {
  it('says what a status means', () => {
    expect(describeError(new ApiError(401, 'Invalid bearer token'))).toBe('This worker requires credentials (401): Invalid bearer token');
    expect(describeError(new ApiError(0, 'Failed to fetch'))).toBe('The worker did not answer: Failed to fetch');
    expect(describeError(new ApiError(504, 'HTTP 504 Gateway Timeout'))).toBe('The worker did not answer (HTTP 504 Gateway Timeout)');
    expect(describeError(new ApiError(400, 'rate: not a double'))).toBe('rate: not a double');
  });
});

describe('paths', () => {
  it('escapes names', () => {
    expect(conn('a b/c', '/status')).toBe('/connectors/a%20b%2Fc/status');
    expect(plugin('file-source', '/versions')).toBe('/connector-plugins/file-source/versions');
    expect(ui.connector('x y')).toBe('/ui/connectors/x%20y');
  });
});

describe('pluginNames', () => {
  it('has one entry per plugin with its versions', () => {
    expect(
      pluginNames([
        { class: 'tagged', type: 'source', version: '2.0.0' },
        { class: 'datagen', type: 'source', version: '0.1.0' },
        { class: 'tagged', type: 'source', version: '1.0.0' },
      ]),
    ).toEqual([
      { name: 'datagen', type: 'source', versions: ['0.1.0'] },
      { name: 'tagged', type: 'source', versions: ['2.0.0', '1.0.0'] },
    ]);
  });
});
