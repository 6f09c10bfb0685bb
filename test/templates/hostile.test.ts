import { describe, expect, it } from 'vitest';
import { templateRules, validateTemplate } from '../../src/templates/index.js';
import { TEMPLATE_RULES } from '../../src/templates/rules.js';

const ruleIds = new Set(templateRules.map((r) => r.id));

/** Validates without throwing and checks the result's shape; returns the issues' rule ids. */
function safe(input: unknown): string[] {
  let result: ReturnType<typeof validateTemplate> | undefined;
  expect(() => {
    result = validateTemplate(input);
  }).not.toThrow();
  expect(result).toBeDefined();
  const { valid, issues } = result!;
  expect(valid).toBe(issues.length === 0);
  for (const issue of issues) {
    expect(ruleIds.has(issue.rule), issue.rule).toBe(true);
    expect(issue.rule).not.toBe('internal_error');
    expect(Array.isArray(issue.path)).toBe(true);
    expect(typeof issue.field).toBe('string');
    expect(issue.message.length).toBeGreaterThan(0);
    expect(issue.message.length).toBeLessThan(300);
  }
  return issues.map((i) => i.rule);
}

const base = () => ({
  name: 'hostile',
  language: 'en',
  category: 'UTILITY',
  body: { text: 'Hello there.' },
});

const throwing = () => {
  throw new Error('boom');
};

describe('hostile input never throws', () => {
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a number', 42],
    ['NaN', Number.NaN],
    ['a string', 'template'],
    ['a boolean', true],
    ['a bigint', 10n],
    ['a symbol', Symbol('t')],
    ['a function', () => ({})],
    ['an array', [base()]],
    ['a Date', new Date(0)],
    ['a Map', new Map([['name', 'x']])],
    ['a null-prototype object', Object.assign(Object.create(null), base())],
  ])('%s', (_, input) => {
    const rules = safe(input);
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      expect(rules).toEqual(['type.template']);
    }
  });

  it('a null-prototype copy of a valid template is valid', () => {
    expect(safe(Object.assign(Object.create(null), base()))).toEqual([]);
  });

  it('getters that throw become type issues at their field', () => {
    const input = { ...base() };
    Object.defineProperty(input, 'name', { get: throwing, enumerable: true });
    const body = {};
    Object.defineProperty(body, 'text', { get: throwing, enumerable: true });
    expect(
      safe({
        ...base(),
        body,
        get footer() {
          return throwing();
        },
      }),
    ).toEqual(expect.arrayContaining(['type.body.text', 'type.footer']));
    expect(safe(input)).toEqual(['type.name']);
  });

  it('Proxies with throwing traps', () => {
    const trap = new Proxy(
      {},
      {
        get: throwing,
        has: throwing,
        ownKeys: throwing,
        getOwnPropertyDescriptor: throwing,
        getPrototypeOf: throwing,
      },
    );
    // Every top-level field is unreadable: one type issue each, nothing else.
    const rules = safe(trap);
    expect(rules).toHaveLength(11);
    expect(rules.every((r) => r.startsWith('type.'))).toBe(true);
    safe({ ...base(), header: trap, buttons: [trap, trap], carousel: trap });
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    safe(proxy);
    safe({ ...base(), buttons: proxy, header: proxy });
    const lyingArray = new Proxy([], { get: (_t, k) => (k === 'length' ? 1e12 : undefined) });
    safe({ ...base(), buttons: lyingArray });
  });

  it('a Proxy that answers differently each time is read once', () => {
    let reads = 0;
    const flip = new Proxy(base(), {
      get(target, key, receiver) {
        if (key === 'name') return reads++ % 2 === 0 ? 'valid_name' : 'Not Valid';
        return Reflect.get(target, key, receiver);
      },
    });
    expect(safe(flip)).toEqual([]);
    expect(reads).toBe(1);
  });

  it('cyclic objects', () => {
    const t: Record<string, unknown> = base();
    t.header = t;
    t.footer = { text: 'ok', self: t };
    t.buttons = [t, t];
    t.carousel = [{ header: t, body: t, buttons: [t] }];
    const rules = safe(t);
    expect(rules).toContain('unknown_field');
    const arr: unknown[] = [];
    arr.push(arr);
    safe({ ...base(), buttons: arr, body: { text: 'x', examples: arr } });
  });

  it('10 MB strings everywhere: every length rule fires, and the cost grows linearly with the size', () => {
    const template = (size: number) => {
      const huge = `{{1}}${'x'.repeat(size)}{{1}}`;
      return {
        name: huge,
        language: huge,
        category: 'MARKETING',
        header: { format: 'TEXT', text: huge, examples: [huge] },
        body: { text: huge, examples: [huge] },
        footer: { text: huge },
        buttons: [{ type: 'URL', text: huge, url: huge, phoneNumber: huge, example: [huge] }],
        limitedTimeOffer: { text: huge },
      };
    };
    const small = template(2.5 * 1024 * 1024);
    const large = template(10 * 1024 * 1024);
    expect(safe(large)).toEqual(
      expect.arrayContaining([
        'name.max_length',
        'header.text.max_length',
        'body.text.max_length',
        'footer.text.max_length',
      ]),
    );
    // Complexity, not speed: the two sizes are timed in the same process (CPU time, best of three, so a busy
    // machine slows both alike). A 4× larger input costs ~4× when linear and ~16× when quadratic; only the
    // latter fails. No absolute bound: the machine's speed does not matter.
    const cpuMs = (input: unknown) => {
      let best = Number.POSITIVE_INFINITY;
      for (let run = 0; run < 3; run++) {
        const before = process.cpuUsage();
        validateTemplate(input);
        const used = process.cpuUsage(before);
        best = Math.min(best, (used.user + used.system) / 1000);
      }
      return best;
    };
    const ratio = cpuMs(large) / Math.max(cpuMs(small), 1);
    expect(ratio).toBeLessThan(10);
  });

  it('a text with 200,000 distinct variables', () => {
    const text = `Hi ${Array.from({ length: 200_000 }, (_, i) => `{{${i + 1}}}`).join(' ')} bye`;
    const rules = safe({ ...base(), body: { text, examples: ['a'] } });
    expect(rules).toEqual(['body.text.max_length', 'body.examples.count']);
  });

  it('__proto__ and constructor keys are unknown fields, never prototype writes', () => {
    const input = JSON.parse(
      '{"name":"p","language":"en","category":"UTILITY","body":{"text":"B.","__proto__":{"x":1}},"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
    );
    const { issues } = validateTemplate(input);
    expect(issues.map((i) => i.path)).toEqual([['body', '__proto__'], ['__proto__'], ['constructor']]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('inherited properties are not read (JSON.stringify would not send them)', () => {
    const inherited = Object.create(base());
    expect(safe(inherited)).toEqual([
      'name.required',
      'language.required',
      'category.required',
      'body.required',
    ]);
  });

  it('huge lists and objects with many keys', () => {
    const buttons = Array.from({ length: 100_000 }, () => ({ type: 'QUICK_REPLY', text: 'ok' }));
    const rules = safe({ ...base(), buttons });
    expect(rules).toEqual(['buttons.count']);
    const many: Record<string, unknown> = base();
    for (let i = 0; i < 100_000; i++) many[`k${i}`] = i;
    const unknown = safe(many).filter((r) => r === 'unknown_field');
    expect(unknown.length).toBeGreaterThan(0);
    expect(unknown.length).toBeLessThanOrEqual(100);
    const sparse: unknown[] = [];
    sparse.length = 3;
    expect(safe({ ...base(), buttons: sparse })).toEqual([
      'type.buttons.item',
      'type.buttons.item',
      'type.buttons.item',
    ]);
  });

  it('odd values in every field', () => {
    const odd = [
      null,
      undefined,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      -0,
      1e308,
      '',
      'x',
      [],
      {},
      () => 1,
      Symbol('s'),
      1n,
    ];
    for (const v of odd) {
      safe({
        name: v,
        language: v,
        category: v,
        header: { format: v, text: v, examples: [v] },
        body: { text: v, examples: v, addSecurityRecommendation: v },
        footer: { text: v, codeExpirationMinutes: v },
        buttons: [{ type: v, text: v, url: v, phoneNumber: v, example: [v], otpType: v }],
        carousel: [{ header: v, body: v, buttons: v }, v],
        allowCategoryChange: v,
        messageSendTtlSeconds: v,
        limitedTimeOffer: { text: v, hasExpiration: v },
      });
    }
  });

  it('boxed primitives and class instances', () => {
    class Template {
      name = 'cls';
      language = 'en';
      category = 'UTILITY';
      body = { text: 'From a class.' };
    }
    expect(safe(new Template())).toEqual([]);
    safe({ ...base(), name: new String('boxed') });
  });
});

describe('a failing rule', () => {
  it('is isolated: reported as internal_error, the other rules still run, nothing is thrown', () => {
    const victim = TEMPLATE_RULES.find((r) => r.id === 'name.pattern')!;
    const original = victim.check;
    Object.defineProperty(victim, 'check', {
      value: () => {
        throw new Error('rule bug');
      },
      configurable: true,
    });
    try {
      const { valid, issues } = validateTemplate({
        ...base(),
        name: 'Bad Name',
        footer: { text: 'x'.repeat(61) },
      });
      expect(valid).toBe(false);
      expect(issues.map((i) => i.rule)).toEqual(['internal_error', 'footer.text.max_length']);
      expect(issues[0]).toMatchObject({ code: null, path: [], field: '', params: { rule: 'name.pattern' } });
      expect(issues[0]!.message).toContain('rule bug');
    } finally {
      Object.defineProperty(victim, 'check', { value: original, configurable: true });
    }
    expect(validateTemplate({ ...base(), name: 'Bad Name' }).issues.map((i) => i.rule)).toEqual([
      'name.pattern',
    ]);
  });
});
