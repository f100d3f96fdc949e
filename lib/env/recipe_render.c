/* Recipe templates and rendering a recipe's variables over a topology. */
#include "env/recipe.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/facts.h"
#include "env/nccl_vars.h"
#include "util/strutil.h"

#define VALUE_MAX     4096
#define FACT_NAME_MAX 64

static int bad(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int bad(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static void fact_names(char *buf, size_t len)
{
	buf[0] = '\0';
	for (const struct golden_fact_info *f = golden_facts; f->name; f++) {
		if (f != golden_facts)
			golden_strlcat(buf, ", ", len);
		golden_strlcat(buf, f->name, len);
	}
}

/* Append n bytes of s to out (at *o). */
static int put(char *out, size_t outlen, size_t *o, const char *s, size_t n)
{
	if (!out)
		return 0;
	if (*o + n >= outlen)
		return -1;
	memcpy(out + *o, s, n);
	*o += n;
	out[*o] = '\0';
	return 0;
}

struct walk {
	const struct golden_topo *topo; /* NULL: check only */
	char *out;
	size_t outlen, o;
	char *fact;
	size_t factlen;
	char *why;
	size_t whylen;
	int nfacts;
	bool empty;
};

/* Characters of a {fact:ARG} argument: an fnmatch pattern over PCI addresses. */
static bool arg_char(char c)
{
	return (c && strchr("0123456789abcdef:.*?[]!-", c)) != 0;
}

/* One {fact} or {fact:arg} reference starting at t[i] == '{'. Returns the
 * index after it. */
static long fact_ref(struct walk *w, const char *t, size_t i)
{
	char name[FACT_NAME_MAX], arg[FACT_NAME_MAX], val[VALUE_MAX], all[1024];
	size_t j = i + 1, n, colon = 0;

	while (t[j] && t[j] != '}' && t[j] != '{')
		j++;
	if (t[j] != '}')
		return bad(w->why, w->whylen,
		           "unterminated '{' at offset %zu; write {{ for a literal brace", i);
	n = j - i - 1;
	for (size_t k = i + 1; k < j && n; k++) {
		if (!colon && t[k] == ':' && k > i + 1)
			colon = k;
		else if (colon ? !arg_char(t[k])
		               : (!islower((unsigned char)t[k]) && !isdigit((unsigned char)t[k]) &&
		                  t[k] != '_'))
			n = 0;
	}
	if (colon)
		n = colon - i - 1;
	if (!n || n >= sizeof(name) || (colon && (j - colon - 1 == 0 || j - colon >= sizeof(arg))))
		return bad(w->why, w->whylen,
		           "'%.*s' is not a fact reference; expected {fact} with a lower-case "
		           "fact name (or {fact:pattern}), or {{ for a literal brace",
		           (int)(j - i + 1 > 40 ? 40 : j - i + 1), t + i);
	memcpy(name, t + i + 1, n);
	name[n] = '\0';
	arg[0] = '\0';
	if (colon) {
		memcpy(arg, t + colon + 1, j - colon - 1);
		arg[j - colon - 1] = '\0';
	}
	if (!golden_fact_known(name)) {
		fact_names(all, sizeof(all));
		return bad(w->why, w->whylen, "unknown fact {%s}; expected one of: %s", name, all);
	}
	if (golden_fact_takes_arg(name) != (colon != 0))
		return bad(w->why, w->whylen,
		           colon ? "fact {%s} takes no argument; expected {%s}"
		                 : "fact {%s} needs an argument; expected {%s:PATTERN}, e.g. "
		                   "{pci_netdevs:[08][67de]:00.0}",
		           name, name);
	w->nfacts++;
	if (w->out) {
		if (!w->topo)
			return bad(w->why, w->whylen, "{%s} needs a topology", name);
		if (golden_fact_value_arg(w->topo, name, colon ? arg : NULL, val, sizeof(val)) < 0)
			return bad(w->why, w->whylen, "fact {%s} does not fit in %d bytes", name,
			           VALUE_MAX);
		if (!val[0] && !w->empty) {
			w->empty = true;
			if (w->fact)
				golden_strlcpy(w->fact, name, w->factlen);
		}
		if (put(w->out, w->outlen, &w->o, val, strlen(val)) < 0)
			return bad(w->why, w->whylen, "value longer than %zu bytes", w->outlen - 1);
	}
	return (long)j + 1;
}

static int walk_template(struct walk *w, const char *t)
{
	size_t i = 0;

	if (w->out && w->outlen)
		w->out[0] = '\0';
	while (t[i]) {
		if ((t[i] == '{' || t[i] == '}') && t[i + 1] == t[i]) {
			if (put(w->out, w->outlen, &w->o, t + i, 1) < 0)
				goto toolong;
			i += 2;
		} else if (t[i] == '{') {
			long next = fact_ref(w, t, i);

			if (next < 0)
				return -1;
			i = (size_t)next;
		} else if (t[i] == '}') {
			return bad(w->why, w->whylen,
			           "lone '}' at offset %zu; write }} for a literal brace", i);
		} else {
			if (put(w->out, w->outlen, &w->o, t + i, 1) < 0)
				goto toolong;
			i++;
		}
	}
	return 0;
toolong:
	return bad(w->why, w->whylen, "value longer than %zu bytes", w->outlen - 1);
}

int golden_recipe_template_check(const char *tmpl, char *why, size_t whylen)
{
	struct walk w = {.why = why, .whylen = whylen};

	if (!tmpl)
		return bad(why, whylen, "no template");
	if (walk_template(&w, tmpl) < 0)
		return -1;
	return w.nfacts;
}

int golden_recipe_template_expand(const char *tmpl, const struct golden_topo *topo, char *out,
                                  size_t outlen, char *fact, size_t factlen, char *why,
                                  size_t whylen)
{
	struct walk w = {topo, out, outlen, 0, fact, factlen, why, whylen, 0, false};

	if (!tmpl || !out || !outlen)
		return bad(why, whylen, "no template or output buffer");
	if (fact && factlen)
		fact[0] = '\0';
	if (walk_template(&w, tmpl) < 0)
		return -1;
	return w.empty ? 1 : 0;
}

int golden_recipe_var_check(const struct golden_recipe_var *v, const char **field, char *why,
                            size_t whylen)
{
	char val[VALUE_MAX], msg[512];
	int nfacts;

	*field = "name";
	if (!v->name || !golden_nccl_var_find(v->name))
		return golden_nccl_var_check(v->name, "", why, whylen);
	*field = "why";
	if (!v->why || !v->why[0])
		return bad(why, whylen, "missing or empty; expected one line saying why %s is set",
		           v->name);
	*field = "value";
	nfacts = golden_recipe_template_check(v->value, why, whylen);
	if (nfacts < 0)
		return -1;
	if (nfacts > 0)
		return 0; /* checked again once rendered */
	if (golden_recipe_template_expand(v->value, NULL, val, sizeof(val), NULL, 0, why, whylen) <
	    0)
		return -1;
	if (golden_nccl_var_check(v->name, val, msg, sizeof(msg)) < 0)
		return bad(why, whylen, "%s=%s: %s", v->name, val, msg);
	return 0;
}

/* Append "; TEXT" (or TEXT) to the candidate note for NAME, adding the
 * candidate when render was called without select. */
static int note_candidate(struct golden_decision *res, const struct golden_recipe *r,
                          const char *text)
{
	for (int i = 0; i < res->ncandidates; i++) {
		struct golden_decision_candidate *c = &res->candidates[i];
		size_t old = c->note ? strlen(c->note) : 0;
		char *n;

		if (strcmp(c->recipe, r->name))
			continue;
		n = realloc(c->note, old + strlen(text) + 3);
		if (!n)
			return -1;
		if (!old)
			n[0] = '\0';
		/* n holds old + "; " + text + NUL: sized just above. */
		if (old) {
			memcpy(n + old, "; ", 2);
			old += 2;
		}
		memcpy(n + old, text, strlen(text) + 1);
		c->note = n;
		return 0;
	}
	return golden_decision_add_candidate(res, r->name, r->specificity, true, text);
}

/* Render one variable. 0 set, 1 skipped (note says why), -1 failed (err). */
static int render_var(const struct golden_recipe *r, const struct golden_recipe_var *v,
                      const struct golden_topo *topo, struct golden_decision *tmp, char *notes,
                      size_t nlen, struct golden_err *err)
{
	char val[VALUE_MAX], fact[FACT_NAME_MAX], why[512], note[768];
	int rc = golden_recipe_template_expand(v->value, topo, val, sizeof(val), fact, sizeof(fact),
	                                       why, sizeof(why));

	if (rc < 0)
		return golden_err_set(err, "recipe %s: %s: %s", r->name, v->name, why);
	if (rc == 1) {
		if (!v->optional)
			return golden_err_set(err,
			                      "recipe %s: %s needs fact %s, which is empty on this "
			                      "node",
			                      r->name, v->name, fact);
		snprintf(note, sizeof(note), "skipped optional %s: fact %s is empty on this node",
		         v->name, fact);
	} else if (golden_nccl_var_check(v->name, val, why, sizeof(why)) < 0) {
		if (!v->optional)
			return golden_err_set(err, "recipe %s: %s=%s on this node: %s", r->name,
			                      v->name, val, why);
		snprintf(note, sizeof(note), "skipped optional %s=%.200s: %s", v->name, val, why);
	} else {
		if (golden_decision_setvar(tmp, v->name, val, v->why) < 0)
			return golden_err_set(err, "recipe %s: out of memory", r->name);
		return 0;
	}
	if (notes[0])
		golden_strlcat(notes, "; ", nlen);
	golden_strlcat(notes, note, nlen);
	return 1;
}

int golden_recipe_render(const struct golden_recipe *r, const struct golden_topo *topo,
                         struct golden_decision *res, struct golden_err *err)
{
	struct golden_decision tmp;
	char notes[2048] = "";
	char *name = NULL, *source = NULL;
	int rc = -1;

	golden_decision_init(&tmp);
	for (int i = 0; i < r->nvars; i++)
		if (render_var(r, &r->vars[i], topo, &tmp, notes, sizeof(notes), err) < 0)
			goto out;
	/* All or nothing: res only changes once every variable rendered. */
	name = strdup(r->name);
	source = r->source ? strdup(r->source) : NULL;
	if (!name || (r->source && !source)) {
		golden_err_set(err, "recipe %s: out of memory", r->name);
		goto out;
	}
	for (int i = 0; i < tmp.nvars; i++)
		if (golden_decision_setvar(res, tmp.vars[i].name, tmp.vars[i].value,
		                           tmp.vars[i].why) < 0) {
			golden_err_set(err, "recipe %s: out of memory", r->name);
			goto out;
		}
	if (notes[0] && note_candidate(res, r, notes) < 0) {
		golden_err_set(err, "recipe %s: out of memory", r->name);
		goto out;
	}
	free(res->recipe);
	free(res->source);
	res->recipe = name;
	res->source = source;
	name = source = NULL;
	rc = 0;
out:
	free(name);
	free(source);
	golden_decision_free(&tmp);
	return rc;
}
