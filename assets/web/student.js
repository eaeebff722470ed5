// fencing-lab's adapter for the web page: the browser port of assets/lab/js/adapter.mjs's reply
// logic, and it mirrors that file function for function (keep the two in step). The page's Web
// Worker inlines this classic script, imports the student's lock_service.mjs and calls
//
//   const student = fencingStudent(ns); // ns: the module's namespace, with ns.NotImplemented
//   const reply = student.answer(requestLine); // one request line in, one reply line out
//
// `answer` returns the JSON reply line (no newline) that adapter.mjs would write for that line,
// or "" for a blank line (the adapter answers nothing). Differences from adapter.mjs: no Node
// APIs (a small port of Node's util.inspect writes `shown`); `hello` says the language is
// "javascript (in this browser)"; a method that returns a Promise cannot be awaited in a
// synchronous call, so it is answered with a `threw` that says to run `fencing-lab check`.
// ES2020 at most, no regular-expression lookbehind: it must parse in older browsers too.
// Its parity with adapter.mjs is tested by tests/lab/web/parity.mjs.

function fencingStudent(ns) {
  "use strict";

  // ---- Node's util.inspect (lib/internal/util/inspect.js of Node 20), the parts that the
  // adapter's options reach: no colors, showHidden false, compact 3, getters false, sorted false.

  var inspectFormatter = (function () {
    var kObjectType = 0;
    var kArrayType = 1;
    var kArrayExtrasType = 2;
    var kMinLineLength = 16;
    var keyStrRegExp = /^[a-zA-Z_][a-zA-Z_0-9]*$/;
    var numberRegExp = /^(0|[1-9][0-9]*)$/;
    var classRegExp = /^(\s+[^(]*?)\s*{/;
    var stripCommentsRegExp = /(\/\/.*?\n)|(\/\*(.|\n)*?\*\/)/g;
    var customInspectSymbol = Symbol.for("nodejs.util.inspect.custom");
    var objectToString = Object.prototype.toString;
    var hasOwnProperty = Object.prototype.hasOwnProperty;
    var propertyIsEnumerable = Object.prototype.propertyIsEnumerable;
    var functionToString = Function.prototype.toString;

    var meta = [
      "\\x00", "\\x01", "\\x02", "\\x03", "\\x04", "\\x05", "\\x06", "\\x07",
      "\\b", "\\t", "\\n", "\\x0B", "\\f", "\\r", "\\x0E", "\\x0F",
      "\\x10", "\\x11", "\\x12", "\\x13", "\\x14", "\\x15", "\\x16", "\\x17",
      "\\x18", "\\x19", "\\x1A", "\\x1B", "\\x1C", "\\x1D", "\\x1E", "\\x1F",
      "", "", "", "", "", "", "", "\\'", "", "", "", "", "", "", "", "",
      "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "",
      "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "",
      "", "", "", "", "", "", "", "", "", "", "", "", "\\\\", "", "", "",
      "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "",
      "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "\\x7F",
      "\\x80", "\\x81", "\\x82", "\\x83", "\\x84", "\\x85", "\\x86", "\\x87",
      "\\x88", "\\x89", "\\x8A", "\\x8B", "\\x8C", "\\x8D", "\\x8E", "\\x8F",
      "\\x90", "\\x91", "\\x92", "\\x93", "\\x94", "\\x95", "\\x96", "\\x97",
      "\\x98", "\\x99", "\\x9A", "\\x9B", "\\x9C", "\\x9D", "\\x9E", "\\x9F",
    ];

    // Brand checks, in place of node's internal util.types.
    function brand(getter) {
      return function (value) {
        if (getter === undefined) return false;
        try {
          getter.call(value);
          return true;
        } catch (e) {
          return false;
        }
      };
    }
    function getterOf(proto, name) {
      if (!proto) return undefined;
      var d = Object.getOwnPropertyDescriptor(proto, name);
      return d === undefined ? undefined : d.get || d.value;
    }
    var isMap = brand(getterOf(Map.prototype, "size"));
    var isSet = brand(getterOf(Set.prototype, "size"));
    var isDateBrand = brand(Date.prototype.getTime);
    var isRegExpBrand = brand(getterOf(RegExp.prototype, "source"));
    var isArrayBuffer = brand(getterOf(ArrayBuffer.prototype, "byteLength"));
    var isSharedArrayBuffer = brand(
      typeof SharedArrayBuffer === "function" ? getterOf(SharedArrayBuffer.prototype, "byteLength") : undefined,
    );
    var isDataView = brand(getterOf(DataView.prototype, "byteLength"));
    var typedArrayTag = getterOf(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag);
    var weakMapHas = WeakMap.prototype.has;
    var weakSetHas = WeakSet.prototype.has;
    function isDate(v) {
      return v !== Date.prototype && isDateBrand(v);
    }
    function isRegExp(v) {
      return v !== RegExp.prototype && isRegExpBrand(v);
    }
    function isTypedArray(v) {
      try {
        return typedArrayTag.call(v) !== undefined;
      } catch (e) {
        return false;
      }
    }
    function isWeakMap(v) {
      try {
        weakMapHas.call(v, {});
        return true;
      } catch (e) {
        return false;
      }
    }
    function isWeakSet(v) {
      try {
        weakSetHas.call(v, {});
        return true;
      } catch (e) {
        return false;
      }
    }
    function isAnyArrayBuffer(v) {
      return isArrayBuffer(v) || isSharedArrayBuffer(v);
    }
    function isPromise(v) {
      return v instanceof Promise;
    }
    function isNativeError(v) {
      try {
        return objectToString.call(v) === "[object Error]";
      } catch (e) {
        return false;
      }
    }
    function isErrorValue(v) {
      return isNativeError(v) || v instanceof Error;
    }
    function isArgumentsObject(v) {
      return objectToString.call(v) === "[object Arguments]";
    }
    function isModuleNamespaceObject(v) {
      return Object.getPrototypeOf(v) === null && v[Symbol.toStringTag] === "Module" && !Object.isExtensible(v);
    }
    var boxed = [
      ["Number", Number.prototype.valueOf],
      ["String", String.prototype.valueOf],
      ["Boolean", Boolean.prototype.valueOf],
      ["BigInt", typeof BigInt === "function" ? BigInt.prototype.valueOf : undefined],
      ["Symbol", Symbol.prototype.valueOf],
    ];
    function boxedType(v) {
      for (var i = 0; i < boxed.length; i++) {
        if (boxed[i][1] === undefined) continue;
        try {
          boxed[i][1].call(v);
          return boxed[i];
        } catch (e) {}
      }
      return null;
    }
    function isURL(v) {
      return typeof URL === "function" && typeof v.href === "string" && v instanceof URL;
    }
    function functionKind(v) {
      try {
        return objectToString.call(v);
      } catch (e) {
        return "";
      }
    }
    // V8's name for an object's class, as node's internal getConstructorName gives it.
    function internalGetConstructorName(v) {
      try {
        var ctor = v.constructor;
        if (typeof ctor === "function" && ctor.name) return ctor.name;
      } catch (e) {}
      try {
        return objectToString.call(v).slice(8, -1);
      } catch (e) {
        return "Object";
      }
    }

    function join(output, separator) {
      var str = "";
      if (output.length !== 0) {
        var lastIndex = output.length - 1;
        for (var i = 0; i < lastIndex; i++) {
          str += output[i];
          str += separator;
        }
        str += output[lastIndex];
      }
      return str;
    }

    function repeat(n) {
      return " ".repeat(n);
    }

    function addQuotes(str, quotes) {
      if (quotes === -1) return '"' + str + '"';
      if (quotes === -2) return "`" + str + "`";
      return "'" + str + "'";
    }

    function escapeCode(code) {
      return meta.length > code ? meta[code] : "\\u" + code.toString(16);
    }

    // The characters node's strEscapeSequencesReplacer(Single) matches: controls, the single quote
    // (when it is the quote), the backslash, C1 controls and lone surrogates.
    function escapeAll(str, quote) {
      var result = "";
      var last = 0;
      for (var i = 0; i < str.length; i++) {
        var point = str.charCodeAt(i);
        if (point === quote || point === 92 || point < 32 || (point > 126 && point < 160)) {
          result += str.slice(last, i) + meta[point];
          last = i + 1;
        } else if (point >= 0xd800 && point <= 0xdfff) {
          if (point <= 0xdbff && i + 1 < str.length) {
            var next = str.charCodeAt(i + 1);
            if (next >= 0xdc00 && next <= 0xdfff) {
              i++;
              continue;
            }
          }
          result += str.slice(last, i) + escapeCode(point);
          last = i + 1;
        }
      }
      if (last === 0) return str;
      if (last !== str.length) result += str.slice(last);
      return result;
    }

    function strEscape(str) {
      var singleQuote = 39;
      if (str.indexOf("'") !== -1) {
        if (str.indexOf('"') === -1) {
          singleQuote = -1;
        } else if (str.indexOf("`") === -1 && str.indexOf("${") === -1) {
          singleQuote = -2;
        }
      }
      return addQuotes(escapeAll(str, singleQuote), singleQuote);
    }

    function isFullWidthCodePoint(code) {
      return (
        code >= 0x1100 &&
        (code <= 0x115f ||
          code === 0x2329 ||
          code === 0x232a ||
          (code >= 0x2e80 && code <= 0x3247 && code !== 0x303f) ||
          (code >= 0x3250 && code <= 0x4dbf) ||
          (code >= 0x4e00 && code <= 0xa4c6) ||
          (code >= 0xa960 && code <= 0xa97c) ||
          (code >= 0xac00 && code <= 0xd7a3) ||
          (code >= 0xf900 && code <= 0xfaff) ||
          (code >= 0xfe10 && code <= 0xfe19) ||
          (code >= 0xfe30 && code <= 0xfe6b) ||
          (code >= 0xff01 && code <= 0xff60) ||
          (code >= 0xffe0 && code <= 0xffe6) ||
          (code >= 0x1b000 && code <= 0x1b001) ||
          (code >= 0x1f200 && code <= 0x1f251) ||
          (code >= 0x1f300 && code <= 0x1f64f) ||
          (code >= 0x20000 && code <= 0x3fffd))
      );
    }

    function isZeroWidthCodePoint(code) {
      return (
        code <= 0x1f ||
        (code >= 0x7f && code <= 0x9f) ||
        (code >= 0x300 && code <= 0x36f) ||
        (code >= 0x200b && code <= 0x200f) ||
        (code >= 0x20d0 && code <= 0x20ff) ||
        (code >= 0xfe00 && code <= 0xfe0f) ||
        (code >= 0xfe20 && code <= 0xfe2f) ||
        (code >= 0xe0100 && code <= 0xe01ef)
      );
    }

    // Columns a string takes (node asks ICU past the first non-ASCII character; this is node's
    // own fallback, the same for all but rare characters).
    function getStringWidth(str) {
      var width = 0;
      for (var i = 0; i < str.length; i++) {
        var code = str.charCodeAt(i);
        if (code >= 127) {
          var rest = str.slice(i).normalize("NFC");
          for (var j = 0; j < rest.length; j++) {
            var cp = rest.codePointAt(j);
            if (cp > 0xffff) j++;
            if (isFullWidthCodePoint(cp)) width += 2;
            else if (!isZeroWidthCodePoint(cp)) width++;
          }
          break;
        }
        width += code >= 32 ? 1 : 0;
      }
      return width;
    }

    function isInstanceof(object, proto) {
      try {
        return object instanceof proto;
      } catch (e) {
        return false;
      }
    }

    var ordinaryHasInstance = Function.prototype[Symbol.hasInstance];

    function getConstructorName(obj, ctx, recurseTimes) {
      var firstProto;
      var tmp = obj;
      while (obj) {
        if (obj === Object.prototype || obj === Function.prototype) {
          var known = obj === Object.prototype ? Object : Function;
          if (ordinaryHasInstance.call(known, tmp)) return known === Object ? "Object" : "Function";
        }
        var descriptor = Object.getOwnPropertyDescriptor(obj, "constructor");
        if (
          descriptor !== undefined &&
          typeof descriptor.value === "function" &&
          descriptor.value.name !== "" &&
          isInstanceof(tmp, descriptor.value)
        ) {
          return String(descriptor.value.name);
        }
        obj = Object.getPrototypeOf(obj);
        if (firstProto === undefined) firstProto = obj;
      }
      if (firstProto === null) return null;
      var res = internalGetConstructorName(tmp);
      if (recurseTimes > ctx.depth && ctx.depth !== null) return res + " <Complex prototype>";
      var protoConstr = getConstructorName(firstProto, ctx, recurseTimes + 1);
      if (protoConstr === null) {
        return res + " <" + inspect(firstProto, Object.assign({}, ctx, { customInspect: false, depth: -1 })) + ">";
      }
      return res + " <" + protoConstr + ">";
    }

    function getPrefix(constructor, tag, fallback, size) {
      if (size === undefined) size = "";
      if (constructor === null) {
        if (tag !== "" && fallback !== tag) return "[" + fallback + size + ": null prototype] [" + tag + "] ";
        return "[" + fallback + size + ": null prototype] ";
      }
      if (tag !== "" && constructor !== tag) return constructor + size + " [" + tag + "] ";
      return constructor + size + " ";
    }

    function getKeys(value) {
      var keys = Object.keys(value);
      var symbols = Object.getOwnPropertySymbols(value);
      for (var i = 0; i < symbols.length; i++) {
        if (propertyIsEnumerable.call(value, symbols[i])) keys.push(symbols[i]);
      }
      return keys;
    }

    // An array's own enumerable keys that are not indices (V8's kSkipIndices).
    function getOwnNonIndexProperties(value) {
      var keys = Object.keys(value).filter(function (key) {
        return !(numberRegExp.test(key) && Number(key) < 4294967295);
      });
      var symbols = Object.getOwnPropertySymbols(value);
      for (var i = 0; i < symbols.length; i++) {
        if (propertyIsEnumerable.call(value, symbols[i])) keys.push(symbols[i]);
      }
      return keys;
    }

    function getCtxStyle(value, constructor, tag) {
      var fallback = "";
      if (constructor === null) {
        fallback = internalGetConstructorName(value);
        if (fallback === tag) fallback = "Object";
      }
      return getPrefix(constructor, tag, fallback);
    }

    function formatValue(ctx, value, recurseTimes, typedArray) {
      if (typeof value !== "object" && typeof value !== "function") {
        return formatPrimitive(value, ctx);
      }
      if (value === null) return "null";
      var context = value;
      if (ctx.customInspect) {
        var maybeCustom = value[customInspectSymbol];
        if (
          typeof maybeCustom === "function" &&
          maybeCustom !== inspect &&
          !(value.constructor && value.constructor.prototype === value)
        ) {
          var depth = ctx.depth === null ? null : ctx.depth - recurseTimes;
          var ret = maybeCustom.call(context, depth, getUserOptions(ctx), inspect);
          if (ret !== context) {
            if (typeof ret !== "string") return formatValue(ctx, ret, recurseTimes);
            return ret.split("\n").join("\n" + repeat(ctx.indentationLvl));
          }
        }
      }
      if (ctx.seen.indexOf(value) !== -1) {
        var index = 1;
        if (ctx.circular === undefined) {
          ctx.circular = new Map();
          ctx.circular.set(value, index);
        } else {
          index = ctx.circular.get(value);
          if (index === undefined) {
            index = ctx.circular.size + 1;
            ctx.circular.set(value, index);
          }
        }
        return "[Circular *" + index + "]";
      }
      return formatRaw(ctx, value, recurseTimes, typedArray);
    }

    function getUserOptions(ctx) {
      var ret = {
        stylize: function (str) {
          return str;
        },
        showHidden: false,
        depth: ctx.depth,
        colors: false,
        customInspect: ctx.customInspect,
        showProxy: false,
        maxArrayLength: ctx.maxArrayLength,
        maxStringLength: ctx.maxStringLength,
        breakLength: ctx.breakLength,
        compact: ctx.compact,
        sorted: false,
        getters: false,
        numericSeparator: false,
      };
      return ret;
    }

    function formatRaw(ctx, value, recurseTimes, typedArray) {
      var keys;
      var constructor = getConstructorName(value, ctx, recurseTimes);
      var tag = value[Symbol.toStringTag];
      if (typeof tag !== "string" || (tag !== "" && propertyIsEnumerable.call(value, Symbol.toStringTag))) {
        tag = "";
      }
      var base = "";
      var formatter = function () {
        return [];
      };
      var braces;
      var noIterator = true;
      var i = 0;
      var extrasType = kObjectType;

      if (Symbol.iterator in value || constructor === null) {
        noIterator = false;
        if (Array.isArray(value)) {
          var prefix = constructor !== "Array" || tag !== "" ? getPrefix(constructor, tag, "Array", "(" + value.length + ")") : "";
          keys = getOwnNonIndexProperties(value);
          braces = [prefix + "[", "]"];
          if (value.length === 0 && keys.length === 0) return braces[0] + "]";
          extrasType = kArrayExtrasType;
          formatter = formatArray;
        } else if (isSet(value)) {
          var setSize = getterOf(Set.prototype, "size").call(value);
          var setPrefix = getPrefix(constructor, tag, "Set", "(" + setSize + ")");
          keys = getKeys(value);
          formatter = formatSet.bind(null, constructor !== null ? value : Set.prototype.values.call(value));
          if (setSize === 0 && keys.length === 0) return setPrefix + "{}";
          braces = [setPrefix + "{", "}"];
        } else if (isMap(value)) {
          var mapSize = getterOf(Map.prototype, "size").call(value);
          var mapPrefix = getPrefix(constructor, tag, "Map", "(" + mapSize + ")");
          keys = getKeys(value);
          formatter = formatMap.bind(null, constructor !== null ? value : Map.prototype.entries.call(value));
          if (mapSize === 0 && keys.length === 0) return mapPrefix + "{}";
          braces = [mapPrefix + "{", "}"];
        } else if (isTypedArray(value)) {
          keys = getOwnNonIndexProperties(value);
          var bound = value;
          var fallback = "";
          if (constructor === null) {
            fallback = typedArrayTag.call(value);
            bound = new globalThis[fallback](value);
          }
          var size = getterOf(Object.getPrototypeOf(Uint8Array.prototype), "length").call(value);
          var taPrefix = getPrefix(constructor, tag, fallback, "(" + size + ")");
          braces = [taPrefix + "[", "]"];
          if (value.length === 0 && keys.length === 0) return braces[0] + "]";
          formatter = formatTypedArray.bind(null, bound, size);
          extrasType = kArrayExtrasType;
        } else {
          // Map and Set iterators cannot be previewed without running them: shown as objects.
          noIterator = true;
        }
      }
      if (noIterator) {
        keys = getKeys(value);
        braces = ["{", "}"];
        var boxedInfo;
        if (typeof value === "function") {
          base = getFunctionBase(value, constructor, tag);
          if (keys.length === 0) return base;
        } else if (constructor === "Object") {
          if (isArgumentsObject(value)) {
            braces[0] = "[Arguments] {";
          } else if (tag !== "") {
            braces[0] = getPrefix(constructor, tag, "Object") + "{";
          }
          if (keys.length === 0) return braces[0] + "}";
        } else if (isRegExp(value)) {
          base = RegExp.prototype.toString.call(constructor !== null ? value : new RegExp(value));
          var rePrefix = getPrefix(constructor, tag, "RegExp");
          if (rePrefix !== "RegExp ") base = rePrefix + base;
          if (keys.length === 0 || (recurseTimes > ctx.depth && ctx.depth !== null)) return base;
        } else if (isDate(value)) {
          base = Number.isNaN(Date.prototype.getTime.call(value))
            ? Date.prototype.toString.call(value)
            : Date.prototype.toISOString.call(value);
          var datePrefix = getPrefix(constructor, tag, "Date");
          if (datePrefix !== "Date ") base = datePrefix + base;
          if (keys.length === 0) return base;
        } else if (isErrorValue(value)) {
          base = formatError(value, constructor, tag, ctx, keys);
          if (keys.length === 0) return base;
        } else if (isAnyArrayBuffer(value)) {
          var arrayType = isArrayBuffer(value) ? "ArrayBuffer" : "SharedArrayBuffer";
          var abPrefix = getPrefix(constructor, tag, arrayType);
          if (typedArray === undefined) {
            formatter = formatArrayBuffer;
          } else if (keys.length === 0) {
            return abPrefix + "{ byteLength: " + formatNumber(value.byteLength) + " }";
          }
          braces[0] = abPrefix + "{";
          keys.unshift("byteLength");
        } else if (isDataView(value)) {
          braces[0] = getPrefix(constructor, tag, "DataView") + "{";
          keys.unshift("byteLength", "byteOffset", "buffer");
        } else if (isPromise(value)) {
          // A promise's state cannot be read synchronously here: node would show it.
          braces[0] = getPrefix(constructor, tag, "Promise") + "{";
          formatter = function () {
            return ["<pending>"];
          };
        } else if (isWeakSet(value)) {
          braces[0] = getPrefix(constructor, tag, "WeakSet") + "{";
          formatter = formatWeakCollection;
        } else if (isWeakMap(value)) {
          braces[0] = getPrefix(constructor, tag, "WeakMap") + "{";
          formatter = formatWeakCollection;
        } else if (isModuleNamespaceObject(value)) {
          braces[0] = getPrefix(constructor, tag, "Module") + "{";
          formatter = formatNamespaceObject.bind(null, keys);
        } else if ((boxedInfo = boxedType(value)) !== null) {
          base = getBoxedBase(value, ctx, keys, constructor, tag, boxedInfo);
          if (keys.length === 0) return base;
        } else if (isURL(value) && !(recurseTimes > ctx.depth && ctx.depth !== null)) {
          base = value.href;
          if (keys.length === 0) return base;
        } else {
          if (keys.length === 0) return getCtxStyle(value, constructor, tag) + "{}";
          braces[0] = getCtxStyle(value, constructor, tag) + "{";
        }
      }

      if (recurseTimes > ctx.depth && ctx.depth !== null) {
        var constructorName = getCtxStyle(value, constructor, tag).slice(0, -1);
        if (constructor !== null) constructorName = "[" + constructorName + "]";
        return constructorName;
      }
      recurseTimes += 1;

      ctx.seen.push(value);
      ctx.currentDepth = recurseTimes;
      var output;
      var indentationLvl = ctx.indentationLvl;
      try {
        output = formatter(ctx, value, recurseTimes);
        for (i = 0; i < keys.length; i++) {
          output.push(formatProperty(ctx, value, recurseTimes, keys[i], extrasType));
        }
      } catch (err) {
        if (!isStackOverflowError(err)) throw err;
        var interrupted = getCtxStyle(value, constructor, tag).slice(0, -1);
        ctx.seen.pop();
        ctx.indentationLvl = indentationLvl;
        return "[" + interrupted + ": Inspection interrupted prematurely. Maximum call stack size exceeded.]";
      }
      if (ctx.circular !== undefined) {
        var circularIndex = ctx.circular.get(value);
        if (circularIndex !== undefined) {
          var reference = "<ref *" + circularIndex + ">";
          base = base === "" ? reference : reference + " " + base;
        }
      }
      ctx.seen.pop();
      return reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value);
    }

    function isStackOverflowError(err) {
      return err instanceof RangeError && /call stack|too much recursion/i.test(String(err.message));
    }

    function getBoxedBase(value, ctx, keys, constructor, tag, info) {
      var type = info[0];
      if (type === "String") keys.splice(0, value.length);
      var result = "[" + type;
      if (type !== constructor) {
        if (constructor === null) result += " (null prototype)";
        else result += " (" + constructor + ")";
      }
      result += ": " + formatPrimitive(info[1].call(value), ctx) + "]";
      if (tag !== "" && tag !== constructor) result += " [" + tag + "]";
      return result;
    }

    function getClassBase(value, constructor, tag) {
      var hasName = hasOwnProperty.call(value, "name");
      var name = (hasName && value.name) || "(anonymous)";
      var result = "class " + name;
      if (constructor !== "Function" && constructor !== null) result += " [" + constructor + "]";
      if (tag !== "" && constructor !== tag) result += " [" + tag + "]";
      if (constructor !== null) {
        var superName = Object.getPrototypeOf(value).name;
        if (superName) result += " extends " + superName;
      } else {
        result += " extends [null prototype]";
      }
      return "[" + result + "]";
    }

    function getFunctionBase(value, constructor, tag) {
      var stringified = functionToString.call(value);
      if (stringified.slice(0, 5) === "class" && stringified[stringified.length - 1] === "}") {
        var slice = stringified.slice(5, -1);
        var bracketIndex = slice.indexOf("{");
        if (
          bracketIndex !== -1 &&
          (slice.slice(0, bracketIndex).indexOf("(") === -1 ||
            classRegExp.exec(slice.replace(stripCommentsRegExp, "")) !== null)
        ) {
          return getClassBase(value, constructor, tag);
        }
      }
      var kind = functionKind(value);
      var type = "Function";
      if (kind === "[object GeneratorFunction]" || kind === "[object AsyncGeneratorFunction]") type = "Generator" + type;
      if (kind === "[object AsyncFunction]" || kind === "[object AsyncGeneratorFunction]") type = "Async" + type;
      var result = "[" + type;
      if (constructor === null) result += " (null prototype)";
      if (value.name === "") result += " (anonymous)";
      else result += ": " + value.name;
      result += "]";
      if (constructor !== type && constructor !== null) result += " " + constructor;
      if (tag !== "" && constructor !== tag) result += " [" + tag + "]";
      return result;
    }

    function identicalSequenceRange(a, b) {
      for (var i = 0; i < a.length - 3; i++) {
        var pos = b.indexOf(a[i]);
        if (pos !== -1) {
          var rest = b.length - pos;
          if (rest > 3) {
            var len = 1;
            var maxLen = Math.min(a.length - i, rest);
            while (maxLen > len && a[i + len] === b[pos + len]) len++;
            if (len > 3) return { len: len, offset: i };
          }
        }
      }
      return { len: 0, offset: 0 };
    }

    function getStackString(error) {
      return error.stack ? String(error.stack) : Error.prototype.toString.call(error);
    }

    function getStackFrames(ctx, err, stack) {
      var frames = stack.split("\n");
      var cause;
      try {
        cause = err.cause;
      } catch (e) {}
      if (cause != null && isErrorValue(cause)) {
        var causeStack = getStackString(cause);
        var causeStackStart = causeStack.indexOf("\n    at");
        if (causeStackStart !== -1) {
          var causeFrames = causeStack.slice(causeStackStart + 1).split("\n");
          var range = identicalSequenceRange(frames, causeFrames);
          if (range.len > 0) {
            var skipped = range.len - 2;
            frames.splice(range.offset + 1, skipped, "    ... " + skipped + " lines matching cause stack trace ...");
          }
        }
      }
      return frames;
    }

    function improveStack(stack, constructor, name, tag) {
      var len = name.length;
      if (
        constructor === null ||
        (name.slice(-5) === "Error" &&
          stack.slice(0, len) === name &&
          (stack.length === len || stack[len] === ":" || stack[len] === "\n"))
      ) {
        var fallback = "Error";
        if (constructor === null) {
          var start = /^([A-Z][a-z_ A-Z0-9[\]()-]+)(?::|\n {4}at)/.exec(stack) || /^([a-z_A-Z0-9-]*Error)$/.exec(stack);
          fallback = (start && start[1]) || "";
          len = fallback.length;
          fallback = fallback || "Error";
        }
        var prefix = getPrefix(constructor, tag, fallback).slice(0, -1);
        if (name !== prefix) {
          if (prefix.indexOf(name) !== -1) {
            if (len === 0) stack = prefix + ": " + stack;
            else stack = prefix + stack.slice(len);
          } else {
            stack = prefix + " [" + name + "]" + stack.slice(len);
          }
        }
      }
      return stack;
    }

    function removeDuplicateErrorKeys(ctx, keys, err, stack) {
      if (keys.length !== 0) {
        var names = ["name", "message", "stack"];
        for (var i = 0; i < names.length; i++) {
          var index = keys.indexOf(names[i]);
          if (index !== -1 && stack.indexOf(String(err[names[i]])) !== -1) keys.splice(index, 1);
        }
      }
    }

    function formatError(err, constructor, tag, ctx, keys) {
      var name = err.name != null ? String(err.name) : "Error";
      var stack = getStackString(err);
      removeDuplicateErrorKeys(ctx, keys, err, stack);
      if ("cause" in err && (keys.length === 0 || keys.indexOf("cause") === -1)) keys.push("cause");
      if (Array.isArray(err.errors) && (keys.length === 0 || keys.indexOf("errors") === -1)) keys.push("errors");
      stack = improveStack(stack, constructor, name, tag);
      var pos = (err.message && stack.indexOf(err.message)) || -1;
      if (pos !== -1) pos += err.message.length;
      var stackStart = stack.indexOf("\n    at", pos);
      if (stackStart === -1) {
        stack = "[" + stack + "]";
      } else {
        var newStack = stack.slice(0, stackStart);
        var lines = getStackFrames(ctx, err, stack.slice(stackStart + 1));
        newStack += "\n" + lines.join("\n");
        stack = newStack;
      }
      if (ctx.indentationLvl !== 0) stack = stack.split("\n").join("\n" + repeat(ctx.indentationLvl));
      return stack;
    }

    function groupArrayElements(ctx, output, value) {
      var totalLength = 0;
      var maxLength = 0;
      var i = 0;
      var outputLength = output.length;
      if (ctx.maxArrayLength < output.length) outputLength--;
      var separatorSpace = 2;
      var dataLen = new Array(outputLength);
      for (; i < outputLength; i++) {
        var len = getStringWidth(output[i]);
        dataLen[i] = len;
        totalLength += len + separatorSpace;
        if (maxLength < len) maxLength = len;
      }
      var actualMax = maxLength + separatorSpace;
      if (actualMax * 3 + ctx.indentationLvl < ctx.breakLength && (totalLength / actualMax > 5 || maxLength <= 6)) {
        var approxCharHeights = 2.5;
        var averageBias = Math.sqrt(actualMax - totalLength / output.length);
        var biasedMax = Math.max(actualMax - 3 - averageBias, 1);
        var columns = Math.min(
          Math.round(Math.sqrt(approxCharHeights * biasedMax * outputLength) / biasedMax),
          Math.floor((ctx.breakLength - ctx.indentationLvl) / actualMax),
          ctx.compact * 4,
          15,
        );
        if (columns <= 1) return output;
        var tmp = [];
        var maxLineLength = [];
        for (var c = 0; c < columns; c++) {
          var lineMaxLength = 0;
          for (var j = c; j < output.length; j += columns) {
            if (dataLen[j] > lineMaxLength) lineMaxLength = dataLen[j];
          }
          lineMaxLength += separatorSpace;
          maxLineLength[c] = lineMaxLength;
        }
        var padStart = true;
        if (value !== undefined) {
          for (var k = 0; k < output.length; k++) {
            if (typeof value[k] !== "number" && typeof value[k] !== "bigint") {
              padStart = false;
              break;
            }
          }
        }
        for (var r = 0; r < outputLength; r += columns) {
          var max = Math.min(r + columns, outputLength);
          var str = "";
          var m = r;
          for (; m < max - 1; m++) {
            var padding = maxLineLength[m - r] + output[m].length - dataLen[m];
            str += padStart ? (output[m] + ", ").padStart(padding, " ") : (output[m] + ", ").padEnd(padding, " ");
          }
          if (padStart) {
            var lastPadding = maxLineLength[m - r] + output[m].length - dataLen[m] - separatorSpace;
            str += output[m].padStart(lastPadding, " ");
          } else {
            str += output[m];
          }
          tmp.push(str);
        }
        if (ctx.maxArrayLength < output.length) tmp.push(output[outputLength]);
        output = tmp;
      }
      return output;
    }

    function remainingText(remaining) {
      return "... " + remaining + " more item" + (remaining > 1 ? "s" : "");
    }

    function formatNumber(number) {
      if (Object.is(number, -0)) return "-0";
      return "" + number;
    }

    function formatBigInt(bigint) {
      return String(bigint) + "n";
    }

    function formatPrimitive(value, ctx) {
      if (typeof value === "string") {
        var trailer = "";
        if (value.length > ctx.maxStringLength) {
          var remaining = value.length - ctx.maxStringLength;
          value = value.slice(0, ctx.maxStringLength);
          trailer = "... " + remaining + " more character" + (remaining > 1 ? "s" : "");
        }
        if (ctx.compact !== true && value.length > kMinLineLength && value.length > ctx.breakLength - ctx.indentationLvl - 4) {
          var parts = [];
          var from = 0;
          for (var i = 0; i < value.length; i++) {
            if (value[i] === "\n") {
              parts.push(value.slice(from, i + 1));
              from = i + 1;
            }
          }
          if (from < value.length || parts.length === 0) parts.push(value.slice(from));
          return parts.map(strEscape).join(" +\n" + repeat(ctx.indentationLvl + 2)) + trailer;
        }
        return strEscape(value) + trailer;
      }
      if (typeof value === "number") return formatNumber(value);
      if (typeof value === "bigint") return formatBigInt(value);
      if (typeof value === "boolean") return "" + value;
      if (typeof value === "undefined") return "undefined";
      return Symbol.prototype.toString.call(value);
    }

    function formatNamespaceObject(keys, ctx, value, recurseTimes) {
      var output = new Array(keys.length);
      for (var i = 0; i < keys.length; i++) {
        try {
          output[i] = formatProperty(ctx, value, recurseTimes, keys[i], kObjectType);
        } catch (err) {
          var tmp = {};
          tmp[keys[i]] = "";
          output[i] = formatProperty(ctx, tmp, recurseTimes, keys[i], kObjectType);
          var pos = output[i].lastIndexOf(" ");
          output[i] = output[i].slice(0, pos + 1) + "<uninitialized>";
        }
      }
      keys.length = 0;
      return output;
    }

    function formatSpecialArray(ctx, value, recurseTimes, maxLength, output, i) {
      var keys = Object.keys(value);
      var index = i;
      for (; i < keys.length && output.length < maxLength; i++) {
        var key = keys[i];
        var tmp = +key;
        if (tmp > Math.pow(2, 32) - 2) break;
        if ("" + index !== key) {
          if (numberRegExp.exec(key) === null) break;
          var emptyItems = tmp - index;
          output.push("<" + emptyItems + " empty item" + (emptyItems > 1 ? "s" : "") + ">");
          index = tmp;
          if (output.length === maxLength) break;
        }
        output.push(formatProperty(ctx, value, recurseTimes, key, kArrayType));
        index++;
      }
      var remaining = value.length - index;
      if (output.length !== maxLength) {
        if (remaining > 0) output.push("<" + remaining + " empty item" + (remaining > 1 ? "s" : "") + ">");
      } else if (remaining > 0) {
        output.push(remainingText(remaining));
      }
      return output;
    }

    function formatArrayBuffer(ctx, value) {
      var buffer;
      try {
        buffer = new Uint8Array(value);
      } catch (e) {
        return ["(detached)"];
      }
      var count = Math.min(ctx.maxArrayLength, buffer.length);
      var bytes = [];
      for (var i = 0; i < count; i++) bytes.push((buffer[i] < 16 ? "0" : "") + buffer[i].toString(16));
      var str = bytes.join(" ");
      var remaining = buffer.length - ctx.maxArrayLength;
      if (remaining > 0) str += " ... " + remaining + " more byte" + (remaining > 1 ? "s" : "");
      return ["[Uint8Contents]: <" + str + ">"];
    }

    function formatArray(ctx, value, recurseTimes) {
      var valLen = value.length;
      var len = Math.min(Math.max(0, ctx.maxArrayLength), valLen);
      var remaining = valLen - len;
      var output = [];
      for (var i = 0; i < len; i++) {
        if (!hasOwnProperty.call(value, i)) return formatSpecialArray(ctx, value, recurseTimes, len, output, i);
        output.push(formatProperty(ctx, value, recurseTimes, i, kArrayType));
      }
      if (remaining > 0) output.push(remainingText(remaining));
      return output;
    }

    function formatTypedArray(value, length, ctx) {
      var maxLength = Math.min(Math.max(0, ctx.maxArrayLength), length);
      var remaining = value.length - maxLength;
      var output = new Array(maxLength);
      var elementFormatter = value.length > 0 && typeof value[0] === "number" ? formatNumber : formatBigInt;
      for (var i = 0; i < maxLength; ++i) output[i] = elementFormatter(value[i]);
      if (remaining > 0) output[maxLength] = remainingText(remaining);
      return output;
    }

    function formatSet(value, ctx, ignored, recurseTimes) {
      var length = value.size;
      var maxLength = Math.min(Math.max(0, ctx.maxArrayLength), length);
      var remaining = length - maxLength;
      var output = [];
      ctx.indentationLvl += 2;
      var i = 0;
      var iterator = value[Symbol.iterator]();
      for (var step = iterator.next(); !step.done; step = iterator.next()) {
        if (i >= maxLength) break;
        output.push(formatValue(ctx, step.value, recurseTimes));
        i++;
      }
      if (remaining > 0) output.push(remainingText(remaining));
      ctx.indentationLvl -= 2;
      return output;
    }

    function formatMap(value, ctx, ignored, recurseTimes) {
      var length = value.size;
      var maxLength = Math.min(Math.max(0, ctx.maxArrayLength), length);
      var remaining = length - maxLength;
      var output = [];
      ctx.indentationLvl += 2;
      var i = 0;
      var iterator = value[Symbol.iterator]();
      for (var step = iterator.next(); !step.done; step = iterator.next()) {
        if (i >= maxLength) break;
        output.push(formatValue(ctx, step.value[0], recurseTimes) + " => " + formatValue(ctx, step.value[1], recurseTimes));
        i++;
      }
      if (remaining > 0) output.push(remainingText(remaining));
      ctx.indentationLvl -= 2;
      return output;
    }

    function formatWeakCollection() {
      return ["<items unknown>"];
    }

    function formatProperty(ctx, value, recurseTimes, key, type, desc) {
      var name, str;
      var extra = " ";
      desc = desc || Object.getOwnPropertyDescriptor(value, key) || { value: value[key], enumerable: true };
      if (desc.value !== undefined) {
        var diff = ctx.compact !== true || type !== kObjectType ? 2 : 3;
        ctx.indentationLvl += diff;
        str = formatValue(ctx, desc.value, recurseTimes);
        if (diff === 3 && ctx.breakLength < getStringWidth(str)) extra = "\n" + repeat(ctx.indentationLvl);
        ctx.indentationLvl -= diff;
      } else if (desc.get !== undefined) {
        str = desc.set !== undefined ? "[Getter/Setter]" : "[Getter]";
      } else if (desc.set !== undefined) {
        str = "[Setter]";
      } else {
        str = "undefined";
      }
      if (type === kArrayType) return str;
      if (typeof key === "symbol") {
        name = "[" + escapeAll(Symbol.prototype.toString.call(key), 39) + "]";
      } else if (key === "__proto__") {
        name = "['__proto__']";
      } else if (desc.enumerable === false) {
        name = "[" + escapeAll(key, 39) + "]";
      } else if (keyStrRegExp.exec(key) !== null) {
        name = key;
      } else {
        name = strEscape(key);
      }
      return name + ":" + extra + str;
    }

    function isBelowBreakLength(ctx, output, start, base) {
      var totalLength = output.length + start;
      if (totalLength + output.length > ctx.breakLength) return false;
      for (var i = 0; i < output.length; i++) {
        totalLength += output[i].length;
        if (totalLength > ctx.breakLength) return false;
      }
      return base === "" || base.indexOf("\n") === -1;
    }

    function reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value) {
      if (ctx.compact !== true) {
        if (typeof ctx.compact === "number" && ctx.compact >= 1) {
          var entries = output.length;
          if (extrasType === kArrayExtrasType && entries > 6) output = groupArrayElements(ctx, output, value);
          if (ctx.currentDepth - recurseTimes < ctx.compact && entries === output.length) {
            var start = output.length + ctx.indentationLvl + braces[0].length + base.length + 10;
            if (isBelowBreakLength(ctx, output, start, base)) {
              var joinedOutput = join(output, ", ");
              if (joinedOutput.indexOf("\n") === -1) {
                return (base ? base + " " : "") + braces[0] + " " + joinedOutput + " " + braces[1];
              }
            }
          }
        }
        var indentation = "\n" + repeat(ctx.indentationLvl);
        return (base ? base + " " : "") + braces[0] + indentation + "  " + join(output, "," + indentation + "  ") + indentation + braces[1];
      }
      if (isBelowBreakLength(ctx, output, 0, base)) {
        return braces[0] + (base ? " " + base : "") + " " + join(output, ", ") + " " + braces[1];
      }
      var indentation2 = repeat(ctx.indentationLvl);
      var ln = base === "" && braces[0].length === 1 ? " " : (base ? " " + base : "") + "\n" + indentation2 + "  ";
      return braces[0] + ln + join(output, ",\n" + indentation2 + "  ") + " " + braces[1];
    }

    function inspect(value, opts) {
      var ctx = {
        indentationLvl: 0,
        seen: [],
        currentDepth: 0,
        depth: 2,
        customInspect: true,
        maxArrayLength: 100,
        maxStringLength: 10000,
        breakLength: 80,
        compact: 3,
      };
      if (opts) {
        var names = ["depth", "customInspect", "maxArrayLength", "maxStringLength", "breakLength", "compact"];
        for (var i = 0; i < names.length; i++) {
          if (hasOwnProperty.call(opts, names[i])) ctx[names[i]] = opts[names[i]];
        }
      }
      if (ctx.maxArrayLength === null) ctx.maxArrayLength = Infinity;
      if (ctx.maxStringLength === null) ctx.maxStringLength = Infinity;
      return formatValue(ctx, value, 0);
    }

    return inspect;
  })();

  var inspect = inspectFormatter;

  // ---- adapter.mjs, from its constants on.

  var LockService = ns ? ns.LockService : undefined;
  var FencedStorage = ns ? ns.FencedStorage : undefined;
  var pairs = [["LockService", LockService], ["FencedStorage", FencedStorage]];
  for (var p = 0; p < pairs.length; p++) {
    if (typeof pairs[p][1] !== "function") {
      throw new Error("adapter: lock_service.mjs must export a class " + pairs[p][0]);
    }
  }
  var NotImplemented = ns && ns.NotImplemented !== undefined ? ns.NotImplemented : null;

  // The manual clock: now() is the last time a `clock` request set (0 at first and after `new`).
  var time = 0;
  var clock = { now: () => time };

  var service = null;
  var storage = null;
  var noObjects = "adapter: no `new` request yet";

  /** A request the adapter cannot carry out: the reply's `threw` text. */
  class AdapterError {
    constructor(message) {
      this.message = message;
    }
  }

  const SHOWN_MAX = 200;
  const DEPTH_MAX = 3;
  const FIELDS_MAX = 100;
  const LINE_MAX = 1000000; // the protocol's limit is 1 MiB a reply line
  const EXTRA_NAMES = ["token", "expiresAt", "expires_at"]; // getters a lease class may have
  const SHOW = { depth: 2, breakLength: Infinity, maxArrayLength: 20, maxStringLength: 200 };
  const DESCRIBE = { depth: 1, breakLength: Infinity, maxArrayLength: 10, maxStringLength: 200 };
  const ASYNC_METHOD =
    "adapter: an async method cannot be checked in the page (it returned a Promise): " +
    "run fencing-lab check on your folder instead";
  const toStringTag = Object.prototype.toString;
  const hasOwn = Object.prototype.hasOwnProperty;
  const encoder = typeof TextEncoder === "function" ? new TextEncoder() : null;

  // JSON text must be Unicode: a lone surrogate in a string becomes U+FFFD.
  function replaceLoneSurrogates(s) {
    let out = null;
    let last = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0xd800 || c > 0xdfff) continue;
      if (c <= 0xdbff && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          i++;
          continue;
        }
      }
      out = (out === null ? "" : out) + s.slice(last, i) + "\uFFFD";
      last = i + 1;
    }
    return out === null ? s : out + s.slice(last);
  }
  const wellFormed =
    typeof "".isWellFormed === "function"
      ? (s) => (s.isWellFormed() ? s : s.toWellFormed())
      : replaceLoneSurrogates;

  function byteLength(line) {
    if (encoder !== null) return encoder.encode(line).length;
    return unescape(encodeURIComponent(line)).length;
  }

  /** At most 200 characters, well-formed (a surrogate pair cut in two becomes U+FFFD). */
  function cut(text) {
    return wellFormed(text.length > SHOWN_MAX ? `${text.slice(0, SHOWN_MAX - 3)}...` : text);
  }

  function isError(value) {
    try {
      return value instanceof Error || toStringTag.call(value) === "[object Error]";
    } catch {
      return false;
    }
  }

  /** What a value is, in words, for a value JSON cannot carry (a function, an array, a Map...). */
  function describe(value) {
    try {
      if (isError(value)) return cut(errorText(value, true));
      return cut(inspect(value, DESCRIBE));
    } catch {}
    try {
      return cut(String(value));
    } catch {
      return `[${typeof value}]`;
    }
  }

  /** How JavaScript writes the returned value, at most 200 characters. */
  function shown(value) {
    switch (typeof value) {
      case "undefined":
        return "undefined";
      case "boolean":
        return value ? "true" : "false";
      case "number":
        return Object.is(value, -0) ? "-0" : String(value);
      case "bigint":
        return cut(`${value}n`);
      default:
        if (value === null) return "null";
        if (isError(value)) return describe(value); // its name and message, not its stack
        try {
          return cut(inspect(value, SHOW));
        } catch {
          return describe(value);
        }
    }
  }

  /** The value as JSON: null and undefined as null, booleans, numbers and strings as themselves,
   * a plain object or class instance as an object of its fields (to depth 3), anything else as a
   * string saying what it is. */
  function jsonValue(value, depth) {
    switch (typeof value) {
      case "string":
        return wellFormed(value);
      case "number":
        return Number.isFinite(value) ? value : null;
      case "boolean":
        return value;
      case "undefined":
        return null;
      case "bigint":
        return value >= -Number.MAX_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER
          ? Number(value)
          : String(value);
      case "object":
        if (value === null) return null;
        return objectValue(value, depth);
      default: // a function, a symbol
        return describe(value);
    }
  }

  function put(object, key, value) {
    if (key === "__proto__") {
      Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
    } else {
      object[key] = value;
    }
  }

  function fieldValue(value, key) {
    try {
      return value[key];
    } catch (err) {
      return `(reading ${key} threw ${messageOf(err)})`;
    }
  }

  function objectValue(value, depth) {
    try {
      // Plain objects and class instances; an array, a Map, a Date, an Error... is described.
      if (depth >= DEPTH_MAX || toStringTag.call(value) !== "[object Object]") return describe(value);
      const out = {};
      const keys = Object.keys(value);
      const count = Math.min(keys.length, FIELDS_MAX);
      for (let i = 0; i < count; i++) {
        const key = keys[i];
        put(out, wellFormed(key), jsonValue(fieldValue(value, key), depth + 1));
      }
      for (const key of EXTRA_NAMES) {
        if (!hasOwn.call(out, key) && key in value) {
          const field = fieldValue(value, key);
          if (typeof field !== "function") out[key] = jsonValue(field, depth + 1);
        }
      }
      return out;
    } catch {
      return describe(value);
    }
  }

  /** An Error's name and message: `TypeError: x is undefined`; a plain Error's name only when
   * `always`. The name is the error's `name`, or its class's when `name` is plain "Error". */
  function errorText(err, always) {
    const message = err.message === undefined ? "" : String(err.message);
    let name = typeof err.name === "string" ? err.name : "";
    if (name === "" || name === "Error") {
      const ctor = err.constructor;
      name = typeof ctor === "function" && ctor !== Error && ctor.name ? ctor.name : "Error";
    }
    if (name === "Error" && !always) return message || "Error";
    return message ? `${name}: ${message}` : name;
  }

  /** What a thrown value says: an error's message, with its class name unless it is plain Error. */
  function messageOf(err) {
    try {
      if (isError(err)) return wellFormed(errorText(err, false));
      if (typeof err === "string") return wellFormed(err);
    } catch {}
    return describe(err); // a thrown value that is not an Error: 42, { code: 1 }, undefined
  }

  function isNotImplemented(err) {
    try {
      if (NotImplemented !== null && err instanceof NotImplemented) return true;
      return err instanceof Error && err.name === "NotImplemented" && typeof err.method === "string";
    } catch {
      return false;
    }
  }

  function fieldText(value) {
    if (value === undefined) return "nothing (the field is missing)";
    try {
      return JSON.stringify(value).slice(0, 200);
    } catch {
      return String(value);
    }
  }

  function text(request, name) {
    const value = request[name];
    if (typeof value === "string") return value;
    throw new AdapterError(`adapter: request field '${name}' must be a string, got ${fieldText(value)}`);
  }

  function integer(request, name) {
    const value = request[name];
    if (Number.isInteger(value)) return value;
    throw new AdapterError(`adapter: request field '${name}' must be an integer, got ${fieldText(value)}`);
  }

  function number(request, name) {
    const value = request[name];
    if (Number.isFinite(value)) return value;
    throw new AdapterError(`adapter: request field '${name}' must be a number, got ${fieldText(value)}`);
  }

  function lockService() {
    if (service === null) throw new AdapterError(noObjects);
    return service;
  }

  function fencedStorage() {
    if (storage === null) throw new AdapterError(noObjects);
    return storage;
  }

  function returned(value) {
    const json = jsonValue(value, 0);
    let text = shown(value);
    // A class whose fields are private (#token behind a getter) inspects as `Lease {}`: show the
    // fields the checker reads instead.
    if (text.endsWith("{}") && json !== null && typeof json === "object" && Object.keys(json).length > 0) {
      try {
        text = cut(`${text.slice(0, -2)}${inspect(json, SHOW)}`);
      } catch {}
    }
    return { returned: json, shown: text };
  }

  /** The reply for what your method returned. adapter.mjs awaits a promise; a synchronous call
   * cannot, so an async method's reply says so (and its promise's rejection is not left
   * unhandled). */
  function result(value) {
    let promise = false;
    try {
      promise = value instanceof Promise;
    } catch {} // a revoked Proxy
    if (promise) {
      try {
        value.then(undefined, () => {});
      } catch {}
      throw new AdapterError(ASYNC_METHOD);
    }
    return returned(value);
  }

  /** The method being called, for a `not_implemented` reply; null while the adapter works. */
  let calling = null;

  /** The reply to one request, without its id. Throws what your code threw. */
  function answerRequest(request) {
    switch (request.op) {
      case "hello":
        return { hello: "fencing-lab-adapter", language: "javascript (in this browser)" };
      case "new": {
        time = 0;
        service = null;
        storage = null;
        noObjects = "adapter: no LockService and FencedStorage: the last `new` failed";
        const args = [clock];
        const hasLease = request.lease_seconds !== undefined && request.lease_seconds !== null;
        const hasFirst = request.first_token !== undefined && request.first_token !== null;
        // An absent field is undefined, so the constructor's default applies.
        if (hasLease || hasFirst) args.push(hasLease ? number(request, "lease_seconds") : undefined);
        if (hasFirst) args.push(integer(request, "first_token"));
        calling = "LockService.constructor";
        const created = new LockService(...args);
        calling = "FencedStorage.constructor";
        const store = new FencedStorage();
        service = created;
        storage = store;
        return { done: true };
      }
      case "clock":
        time = number(request, "now");
        return { done: true };
      case "acquire": {
        const s = lockService();
        const name = text(request, "name");
        const clientId = text(request, "client_id");
        calling = "LockService.acquire";
        return result(s.acquire(name, clientId));
      }
      case "renew": {
        const s = lockService();
        const name = text(request, "name");
        const clientId = text(request, "client_id");
        const token = integer(request, "token");
        calling = "LockService.renew";
        return result(s.renew(name, clientId, token));
      }
      case "release": {
        const s = lockService();
        const name = text(request, "name");
        const clientId = text(request, "client_id");
        const token = integer(request, "token");
        calling = "LockService.release";
        return result(s.release(name, clientId, token));
      }
      case "holder": {
        const s = lockService();
        const name = text(request, "name");
        calling = "LockService.holder";
        return result(s.holder(name));
      }
      case "write": {
        const s = fencedStorage();
        const key = text(request, "key");
        const value = text(request, "value");
        const token = integer(request, "token");
        calling = "FencedStorage.write";
        return result(s.write(key, value, token));
      }
      case "read": {
        const s = fencedStorage();
        const key = text(request, "key");
        calling = "FencedStorage.read";
        return result(s.read(key));
      }
      case "highest_token": {
        const s = fencedStorage();
        const key = text(request, "key");
        calling = "FencedStorage.highestToken";
        return result(s.highestToken(key));
      }
      default: {
        const op = request.op;
        throw new AdapterError(`unknown op ${typeof op === "string" ? op : fieldText(op)}`);
      }
    }
  }

  /** The reply for an error: what the adapter could not do, a method not written yet, or what
   * your code threw (any value, of any type). */
  function failure(err) {
    if (err instanceof AdapterError) return { threw: err.message };
    if (isNotImplemented(err)) {
      let method = null;
      try {
        method = typeof err.method === "string" ? err.method : null;
      } catch {}
      return { not_implemented: method || calling || "a method" };
    }
    return { threw: messageOf(err) };
  }

  /** The reply line (adapter.mjs's send, without writing it). */
  function send(id, body) {
    const reply = { id, ...body };
    let line;
    try {
      line = JSON.stringify(reply);
    } catch (err) {
      line = JSON.stringify({ id: null, threw: `adapter: reply is not JSON: ${messageOf(err)}` });
    }
    if (line.length > LINE_MAX / 3 && byteLength(line) > LINE_MAX) {
      if ("returned" in reply) {
        reply.returned = `a value too large to send (${byteLength(line)} bytes of JSON): ${reply.shown}`;
      } else if (typeof reply.threw === "string") {
        reply.threw = `${cut(reply.threw)} (cut from ${reply.threw.length} characters)`;
      }
      line = JSON.stringify(reply);
    }
    return line;
  }

  /** Answers one request line: its reply line, or "" for a blank line (no reply). */
  function handle(line) {
    line = String(line);
    if (line.trim() === "") return "";
    let request;
    try {
      request = JSON.parse(line);
    } catch (err) {
      return send(null, { threw: `adapter: request is not JSON: ${messageOf(err)}` });
    }
    if (typeof request !== "object" || request === null || Array.isArray(request)) {
      return send(null, { threw: `adapter: request is not JSON: not an object: ${fieldText(request)}` });
    }
    const id = request.id === undefined ? null : request.id;
    calling = null;
    let body;
    try {
      body = answerRequest(request);
    } catch (err) {
      return send(id, failure(err));
    }
    return send(id, body);
  }

  return { answer: handle };
}
