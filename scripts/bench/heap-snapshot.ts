// What holds a V8 heap snapshot (scripts/bench/memory.ts): the dominator tree (Cooper, Harvey and
// Kennedy's iterative algorithm over the strong edges; weak and shortcut edges do not retain), retained
// sizes from it, and three readings: self size by constructor or node name; the largest retained
// objects with the edge their dominator holds them by; and, for an unminified esbuild bundle, the
// retained size of each module's top-level variables (a top-level `var` of the bundle is a slot of the
// script's context, named in the snapshot; esbuild's `// <path>` comment before its declaration names
// the module it comes from).

interface RawSnapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
    node_count: number;
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

export interface HeapSummary {
  nodes: number;
  totalSelf: number;
  byConstructor: { name: string; count: number; self: number }[];
  topRetained: { name: string; type: string; heldBy: string; retained: number }[];
  /** Retained size of each module's top-level variables (empty for a minified bundle). */
  byModule: { module: string; retained: number; variables: [string, number][] }[];
}

/** The module (esbuild's `// <path>` comment) of each line of an unminified bundle. */
function moduleOfLines(source: string): string[] {
  let current = '(bundle)';
  return source.split('\n').map((text) => {
    const marker = /^\/\/ ((?:\.\.\/)*(?:node_modules|src|drizzle|scripts)\/\S+)$/.exec(text);
    if (marker) current = marker[1]!.replace(/^(\.\.\/)+/, '');
    return current;
  });
}

/** Where each top-level name of the bundle is declared: `var a, b;`, `function f(`, `class C`, `let`/`const`. */
function declarations(source: string): Map<string, string> {
  const modules = moduleOfLines(source);
  const found = new Map<string, string>();
  source.split('\n').forEach((text, line) => {
    const head = /^(?:async )?(?:var|let|const|function\*?|class) (.*)$/.exec(text);
    if (!head) return;
    const names = /^(?:var|let|const) /.test(text)
      ? [...head[1]!.split(/[=;]/)[0]!.matchAll(/([A-Za-z_$][\w$]*)/g)].map((m) => m[1]!)
      : [/^([A-Za-z_$][\w$]*)/.exec(head[1]!)?.[1]].filter((name): name is string => Boolean(name));
    // `var a, b, c;` (esbuild's hoisted module variables) or `var a = ...`: the first names up to `=`.
    for (const name of names) if (!found.has(name)) found.set(name, modules[line]!);
  });
  return found;
}

/** Package or folder a module path belongs to: node_modules/<pkg> or src/<dir>/<dir>. */
function groupOf(module: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(module);
  if (pkg) return pkg[1]!;
  const parts = module.replace(/\.ts$/, '').split('/');
  return parts.slice(0, parts[1] === 'modules' ? 3 : 2).join('/');
}

export function summarizeHeapSnapshot(text: string, options: { bundleSource?: string; top?: number } = {}): HeapSummary {
  const top = options.top ?? 25;
  const raw = JSON.parse(text) as RawSnapshot;
  const { meta } = raw.snapshot;
  const nodeFields = meta.node_fields.length;
  const edgeFields = meta.edge_fields.length;
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const typeOffset = meta.node_fields.indexOf('type');
  const nameOffset = meta.node_fields.indexOf('name');
  const selfOffset = meta.node_fields.indexOf('self_size');
  const edgeCountOffset = meta.node_fields.indexOf('edge_count');
  const edgeTypeOffset = meta.edge_fields.indexOf('type');
  const edgeNameOffset = meta.edge_fields.indexOf('name_or_index');
  const edgeToOffset = meta.edge_fields.indexOf('to_node');
  const weak = edgeTypes.indexOf('weak');
  const shortcut = edgeTypes.indexOf('shortcut');
  const contextEdge = edgeTypes.indexOf('context');
  const elementEdge = edgeTypes.indexOf('element');
  const hiddenEdge = edgeTypes.indexOf('hidden');
  const { nodes, edges, strings } = raw;
  const count = nodes.length / nodeFields;

  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge[i] = e;
    e += nodes[i * nodeFields + edgeCountOffset]! * edgeFields;
    firstEdge[i + 1] = e;
  }
  const strong = (e: number) => edges[e + edgeTypeOffset] !== weak && edges[e + edgeTypeOffset] !== shortcut;
  const target = (e: number) => edges[e + edgeToOffset]! / nodeFields;

  // Depth-first from the root (node 0): post-order numbers of the reachable nodes.
  const post = new Int32Array(count).fill(-1);
  const order: number[] = [];
  const visited = new Uint8Array(count);
  const stack: number[] = [0];
  const cursor = new Uint32Array(count);
  visited[0] = 1;
  cursor[0] = firstEdge[0]!;
  while (stack.length) {
    const node = stack[stack.length - 1]!;
    let pushed = false;
    while (cursor[node]! < firstEdge[node + 1]!) {
      const e = cursor[node]!;
      cursor[node] = e + edgeFields;
      if (!strong(e)) continue;
      const to = target(e);
      if (visited[to]) continue;
      visited[to] = 1;
      cursor[to] = firstEdge[to]!;
      stack.push(to);
      pushed = true;
      break;
    }
    if (!pushed) {
      stack.pop();
      post[node] = order.length;
      order.push(node);
    }
  }

  // Predecessors (strong edges between reachable nodes), compressed rows.
  const predCount = new Uint32Array(count + 1);
  for (let i = 0; i < count; i++) {
    if (post[i]! < 0) continue;
    for (let e = firstEdge[i]!; e < firstEdge[i + 1]!; e += edgeFields)
      if (strong(e) && post[target(e)]! >= 0) predCount[target(e) + 1]! += 1;
  }
  for (let i = 0; i < count; i++) predCount[i + 1]! += predCount[i]!;
  const preds = new Uint32Array(predCount[count]!);
  const fill = predCount.slice(0, count);
  for (let i = 0; i < count; i++) {
    if (post[i]! < 0) continue;
    for (let e = firstEdge[i]!; e < firstEdge[i + 1]!; e += edgeFields)
      if (strong(e) && post[target(e)]! >= 0) preds[fill[target(e)]!++] = i;
  }

  // Immediate dominators by post-order number.
  const reachable = order.length;
  const idom = new Int32Array(reachable).fill(-1);
  const rootPost = post[0]!;
  idom[rootPost] = rootPost;
  const intersect = (a: number, b: number) => {
    while (a !== b) {
      while (a < b) a = idom[a]!;
      while (b < a) b = idom[b]!;
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let p = reachable - 2; p >= 0; p--) {
      const node = order[p]!;
      let next = -1;
      for (let k = predCount[node]!; k < predCount[node + 1]!; k++) {
        const q = post[preds[k]!]!;
        if (idom[q] === -1) continue;
        next = next === -1 ? q : intersect(q, next);
      }
      if (next !== -1 && idom[p] !== next) {
        idom[p] = next;
        changed = true;
      }
    }
  }

  const retained = new Float64Array(reachable);
  for (let p = 0; p < reachable; p++) retained[p] = nodes[order[p]! * nodeFields + selfOffset]!;
  for (let p = 0; p < reachable - 1; p++) if (idom[p]! >= 0 && idom[p] !== p) retained[idom[p]!]! += retained[p]!;

  const typeOf = (node: number) => nodeTypes[nodes[node * nodeFields + typeOffset]!]!;
  const nameOf = (node: number) => {
    const type = typeOf(node);
    const name = strings[nodes[node * nodeFields + nameOffset]!]!;
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') return '(string)';
    if (type === 'number' || type === 'heap number') return '(number)';
    if (type === 'code') return '(compiled code)';
    if (type === 'array') return `(array) ${name}`.trimEnd();
    if (type === 'closure') return `${name || '(anonymous)'}()`;
    return name.length > 80 ? `${name.slice(0, 77)}...` : name;
  };
  const edgeName = (e: number) => {
    const type = edges[e + edgeTypeOffset]!;
    const name = edges[e + edgeNameOffset]!;
    return type === elementEdge || type === hiddenEdge ? `[${name}]` : strings[name]!;
  };

  let totalSelf = 0;
  const byConstructor = new Map<string, { count: number; self: number }>();
  for (let i = 0; i < count; i++) {
    if (post[i]! < 0) continue;
    const self = nodes[i * nodeFields + selfOffset]!;
    totalSelf += self;
    const key = nameOf(i);
    const entry = byConstructor.get(key) ?? { count: 0, self: 0 };
    entry.count += 1;
    entry.self += self;
    byConstructor.set(key, entry);
  }

  // The largest objects by retained size, below the synthetic roots, with the edge that holds them.
  const heldBy = (node: number) => {
    const dominator = order[idom[post[node]!]!]!;
    for (let e = firstEdge[dominator]!; e < firstEdge[dominator + 1]!; e += edgeFields) {
      if (target(e) === node) return `${nameOf(dominator)} .${edgeName(e)}`;
    }
    return nameOf(dominator);
  };
  const candidates: number[] = [];
  for (let p = 0; p < reachable; p++) {
    const node = order[p]!;
    if (typeOf(node) === 'synthetic' || node === 0) continue;
    candidates.push(p);
  }
  candidates.sort((a, b) => retained[b]! - retained[a]!);
  const topRetained = candidates.slice(0, top).map((p) => {
    const node = order[p]!;
    return { name: nameOf(node), type: typeOf(node), heldBy: heldBy(node), retained: retained[p]! };
  });

  // Top-level variables of the bundle, by the module declaring them.
  const byModuleMap = new Map<string, { retained: number; variables: Map<string, number> }>();
  if (options.bundleSource) {
    const declared = declarations(options.bundleSource);
    for (let i = 0; i < count; i++) {
      if (post[i]! < 0 || !nameOf(i).startsWith('system / Context')) continue;
      for (let e = firstEdge[i]!; e < firstEdge[i + 1]!; e += edgeFields) {
        if (edges[e + edgeTypeOffset] !== contextEdge) continue;
        const variable = strings[edges[e + edgeNameOffset]!]!;
        const module = declared.get(variable);
        const to = target(e);
        // Only what this slot alone keeps alive (the context dominates it): shared objects are not counted twice.
        if (!module || post[to]! < 0 || order[idom[post[to]!]!] !== i) continue;
        const group = groupOf(module);
        const entry = byModuleMap.get(group) ?? { retained: 0, variables: new Map() };
        entry.retained += retained[post[to]!]!;
        entry.variables.set(variable, (entry.variables.get(variable) ?? 0) + retained[post[to]!]!);
        byModuleMap.set(group, entry);
      }
    }
  }

  return {
    nodes: reachable,
    totalSelf,
    byConstructor: [...byConstructor]
      .map(([name, entry]) => ({ name, ...entry }))
      .sort((a, b) => b.self - a.self)
      .slice(0, top),
    topRetained,
    byModule: [...byModuleMap]
      .map(([module, entry]) => ({
        module,
        retained: entry.retained,
        variables: [...entry.variables].sort((a, b) => b[1] - a[1]).slice(0, 5),
      }))
      .sort((a, b) => b.retained - a.retained)
      .slice(0, top),
  };
}
