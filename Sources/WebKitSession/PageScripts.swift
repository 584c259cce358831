import Foundation
import WebAuthSession
import WorldVocabulary

/// The scripts the driver runs in a sheet's page, in a script world of its own (the page's
/// scripts cannot see or change what they define; both see the same DOM).
///
/// ``read(overrides:)`` turns the live document into what ``WebPage`` holds, as the person would
/// see it: only visible inputs and buttons count, with the label a person reads. It remembers
/// the elements it described in `window.__signinsim`, so that ``act(fills:press:submitForm:)``
/// can type into them and press them by their number.
enum PageScripts {
    /// The page reader. `overrides` are the scripted `fill`/`click` targets to locate.
    static func read(overrides: [WebPageOverride]) -> String {
        let targets = overrides.map { override -> [String: String] in
            switch override.target {
            case .selector(let selector): ["kind": override.isClick ? "click" : "fill", "selector": selector]
            case .label(let label): ["kind": override.isClick ? "click" : "fill", "label": label]
            }
        }
        let json = (try? JSONSerialization.data(withJSONObject: targets)).map {
            String(decoding: $0, as: UTF8.self)
        }
        return "const targets = \(json ?? "[]");\n" + reader
    }

    private static let reader = #"""
        const collapse = (s) => (s || '').replace(/\s+/g, ' ').trim();
        const visible = (el) => {
          if (!el.isConnected) return false;
          const style = getComputedStyle(el);
          if (style.visibility === 'hidden' || style.display === 'none') return false;
          const box = el.getBoundingClientRect();
          return box.width > 0 && box.height > 0;
        };
        const textOf = (el) => collapse(el.innerText || el.textContent);
        const labelOf = (el) => {
          if (el.labels && el.labels.length) { const t = textOf(el.labels[0]); if (t) return t; }
          const aria = el.getAttribute('aria-label'); if (aria && aria.trim()) return collapse(aria);
          const by = el.getAttribute('aria-labelledby');
          if (by) {
            const t = by.split(/\s+/).map((id) => document.getElementById(id)).filter(Boolean).map(textOf).join(' ');
            if (t) return t;
          }
          if (el.placeholder) return collapse(el.placeholder);
          const wrapping = el.closest('label'); if (wrapping) { const t = textOf(wrapping); if (t) return t; }
          return null;
        };
        const refs = [];
        const groups = [];
        const groupFor = new Map();
        const group = (el) => {
          const owner = el.form || null;
          if (!groupFor.has(owner)) { const g = { fields: [], buttons: [], owner }; groupFor.set(owner, g); groups.push(g); }
          return groupFor.get(owner);
        };
        const refOf = new Map();
        const remember = (el) => { refs.push(el); refOf.set(el, refs.length - 1); return refs.length - 1; };
        const addButton = (el, label) => {
          if (refOf.has(el)) return;
          group(el).buttons.push({ ref: remember(el), name: el.getAttribute('name'), value: el.value || '', label });
        };
        for (const el of document.querySelectorAll('input, select, textarea, button, [role=button]')) {
          if (el.disabled) continue;
          const tag = el.tagName.toLowerCase();
          if (tag === 'input') {
            const type = (el.getAttribute('type') || 'text').trim().toLowerCase();
            if (type === 'submit' || type === 'button' || type === 'image') {
              if (visible(el)) addButton(el, collapse(el.value) || labelOf(el) || (type === 'submit' ? 'Submit' : ''));
              continue;
            }
            if (type === 'reset' || type === 'file') continue;
            const kind = type === 'password' ? 'password' : type === 'hidden' ? 'hidden'
              : type === 'checkbox' ? 'checkbox' : type === 'radio' ? 'radio' : 'text';
            const shown = kind !== 'hidden' && visible(el) && !el.readOnly;
            group(el).fields.push({ ref: remember(el), name: el.getAttribute('name') || '', id: el.id || null,
              kind, inputType: type, autocomplete: collapse(el.getAttribute('autocomplete')).toLowerCase() || null,
              label: labelOf(el), isVisible: kind === 'checkbox' || kind === 'radio' ? visible(el) : shown,
              isChecked: !!el.checked });
          } else if (tag === 'select' || tag === 'textarea') {
            group(el).fields.push({ ref: remember(el), name: el.getAttribute('name') || '', id: el.id || null,
              kind: tag, inputType: null, autocomplete: collapse(el.getAttribute('autocomplete')).toLowerCase() || null,
              label: labelOf(el), isVisible: visible(el), isChecked: false });
          } else {
            if (tag === 'button' && (el.getAttribute('type') || '').toLowerCase() === 'reset') continue;
            if (!visible(el)) continue;
            addButton(el, textOf(el) || collapse(el.getAttribute('aria-label')) || collapse(el.value));
          }
        }
        const found = [];
        targets.forEach((target, index) => {
          let el = null;
          try {
            if (target.selector) el = document.querySelector(target.selector);
          } catch (e) { el = null; }
          if (!el && target.label) {
            const wanted = target.label.toLowerCase();
            el = refs.find((candidate) => {
              const label = candidate.matches('input, select, textarea') ? labelOf(candidate) : textOf(candidate);
              return (label || '').toLowerCase() === wanted;
            }) || null;
          }
          if (!el) return;
          if (target.kind === 'click' && !refOf.has(el)) addButton(el, textOf(el) || collapse(el.getAttribute('aria-label')));
          if (!refOf.has(el)) return;
          found.push({ override: index, form: groups.indexOf(groupFor.get(el.form || null)), ref: refOf.get(el) });
        });
        const alerts = [];
        const counted = [];
        // What the page says is wrong, as WebPage.alerts: live regions and elements named for
        // errors or alerts, read after the page's scripts wrote into them.
        for (const el of document.querySelectorAll(
          '[role=alert], [aria-live]:not([aria-live=off]), [class*="error" i], [class*="alert" i], '
            + '[id*="error" i], [id*="alert" i]')) {
          if (el === document.body || el === document.documentElement) continue;
          if (counted.some((outer) => outer.contains(el)) || !visible(el)) continue;
          const text = textOf(el);
          if (!text) continue;
          counted.push(el);
          alerts.push(text);
        }
        // Forms in document order, the controls outside any form last.
        groups.sort((a, b) => (a.owner === null) - (b.owner === null));
        const forms = groups.map((g, index) => ({ index, fields: g.fields, buttons: g.buttons }));
        for (const match of found) match.form = groups.indexOf(groupFor.get(refs[match.ref].form || null));
        window.__signinsim = { refs };
        const body = document.body ? textOf(document.body) : '';
        return { url: location.href, title: document.title || null, readyState: document.readyState,
          forms, alerts, text: body.slice(0, 4000), scriptCount: document.scripts.length, overrides: found };
        """#

    /// Types `fills` (element number, value) as a person would, then presses `press` or submits
    /// the form of the last field. The press waits for the script to return, so that a
    /// navigation it starts cannot cut the answer off.
    static func act(fills: [(ref: Int, value: String)], press: Int?, submitForm: Bool) -> String {
        let fillList = fills.map { ["ref": $0.ref, "value": $0.value] as [String: Any] }
        let json = (try? JSONSerialization.data(withJSONObject: fillList)).map {
            String(decoding: $0, as: UTF8.self)
        }
        return """
            const fills = \(json ?? "[]");
            const press = \(press.map(String.init) ?? "null");
            const submitForm = \(submitForm);
            """ + actor
    }

    private static let actor = #"""
        const refs = (window.__signinsim || {}).refs || [];
        const setValue = (el, value) => {
          const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype
            : el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
          const setter = Object.getOwnPropertyDescriptor(proto, 'value').set;
          el.focus();
          setter.call(el, value);
          el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: value }));
          el.dispatchEvent(new Event('change', { bubbles: true }));
        };
        let last = null;
        for (const fill of fills) {
          const el = refs[fill.ref];
          if (!el || !el.isConnected) return { ok: false, why: 'an input the person was typing into went away' };
          if (el.type === 'checkbox' || el.type === 'radio') {
            if (el.checked !== (fill.value === 'true')) el.click();
            continue;
          }
          setValue(el, fill.value);
          last = el;
        }
        if (last) last.blur();
        if (press !== null) {
          const button = refs[press];
          if (!button || !button.isConnected) return { ok: false, why: 'the button went away' };
          setTimeout(() => { button.scrollIntoView({ block: 'center' }); button.click(); }, 0);
        } else if (submitForm && last && last.form) {
          const form = last.form;
          setTimeout(() => form.requestSubmit(), 0);
        }
        return { ok: true };
        """#
}

extension WebPageOverride {
    var isClick: Bool {
        if case .click = self { return true }
        return false
    }
}
