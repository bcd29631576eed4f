/* The marker half of the Python package td: td.region, td.begin/td.end,
 * td.init/td.finalize/td.is_active, over libtd's C API.
 *
 * A C extension rather than ctypes: ctypes costs ~0.3 µs per call before any
 * Python around it, too much for the ≤ 1.5 µs a pair may add over the C pair
 * (docs/performance.md, "Bindings"). Built against the limited API of
 * CPython 3.10, so one _td.abi3.so serves every CPython from 3.10 on.
 *
 * Each region name gets one td_site for the life of the process (the dict
 * g_sites, name -> capsule), so a `with td.region("x"):` costs one dict
 * lookup of a str whose hash Python has cached, then td_region_begin/end on
 * the site. Bad input never raises: it prints one warning line per distinct
 * problem (td's "td: warning: …" form) and the marker is ignored.
 */
#define Py_LIMITED_API 0x030a0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>
#include <string.h>

#include "td/td.h"

/* The sites' file. They have no line (0), so the runtime's warnings about
 * them (an END without its BEGIN) say "(dynamic name)", as for
 * td_region_begin_name(). */
static const char kFile[] = "(Python)";
enum { kMaxWarnings = 100 };

static PyObject* g_sites;    /* dict: name (str) -> capsule of its td_site, or None: rejected */
static PyObject* g_said;     /* set: warnings already printed */
static PyObject* g_decorate; /* td._decorate(region, function), set by td/__init__.py */
static Py_ssize_t g_warnings;

static int MarkersOn(void) { return !__atomic_load_n(&td_markers_off, __ATOMIC_RELAXED); }

/* Prints "td: warning: MESSAGE" once per distinct message; keeps any
 * exception that is set. Steals the reference to message. */
static void Warn(PyObject* message) {
  if (message == NULL) {
    PyErr_Clear();
    return;
  }
  const int said = PySet_Contains(g_said, message);
  if (said != 0 || PySet_Add(g_said, message) < 0) {
    PyErr_Clear();
    Py_DECREF(message);
    return;
  }
  ++g_warnings;
  if (g_warnings <= kMaxWarnings) {
    PySys_FormatStderr("td: warning: %U\n", message);
  } else if (g_warnings == kMaxWarnings + 1) {
    PySys_FormatStderr("td: more than %d problems in the Python binding; further ones are not printed\n",
                       kMaxWarnings);
  }
  Py_DECREF(message);
}

/* The site of a region name; NULL (and a warning) when markers with it are
 * to be ignored. Never leaves an exception set. */
static td_site* SiteFor(PyObject* name, const char* what) {
  if (!PyUnicode_Check(name)) {
    PyObject* type = PyObject_GetAttrString((PyObject*)Py_TYPE(name), "__name__");
    Warn(PyUnicode_FromFormat("%s(): a region name must be a str, not %S; ignored", what,
                              type != NULL ? type : Py_None));
    Py_XDECREF(type);
    PyErr_Clear();
    return NULL;
  }
  PyObject* found = PyDict_GetItemWithError(g_sites, name); /* borrowed */
  if (found != NULL) return found == Py_None ? NULL : (td_site*)PyCapsule_GetPointer(found, NULL);
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return NULL;
  }
  /* First use of this name: td names are byte strings; surrogateescape gives
   * back the bytes a str decoded with it came from (os.fsdecode…). */
  PyObject* bytes = PyUnicode_AsEncodedString(name, "utf-8", "surrogateescape");
  if (bytes == NULL) {
    PyErr_Clear();
    Warn(PyUnicode_FromFormat("%s(%R): the name cannot be encoded as UTF-8; ignored", what, name));
    return NULL;
  }
  char* data = NULL;
  Py_ssize_t size = 0;
  td_site* site = NULL;
  if (PyBytes_AsStringAndSize(bytes, &data, &size) == 0 && memchr(data, '\0', (size_t)size) != NULL) {
    Warn(PyUnicode_FromFormat("%s(%R): a td region name cannot hold a NUL character; ignored", what,
                              name));
    if (PyDict_SetItem(g_sites, name, Py_None) < 0) PyErr_Clear();
  } else if (data != NULL) {
    char* copy = malloc((size_t)size + 1);
    site = calloc(1, sizeof(td_site));
    PyObject* capsule = NULL;
    if (copy != NULL && site != NULL) {
      memcpy(copy, data, (size_t)size);
      copy[size] = '\0';
      site->name = copy;
      site->file = kFile;
      capsule = PyCapsule_New(site, NULL, NULL);
    }
    /* Sites live as long as the process: the runtime keeps pointers to them. */
    if (capsule == NULL || PyDict_SetItem(g_sites, name, capsule) < 0) {
      free(copy);
      free(site);
      site = NULL;
    }
    Py_XDECREF(capsule);
  }
  PyErr_Clear();
  Py_DECREF(bytes);
  return site;
}

/* A region's integer parameter; 0 (and a warning) when it is not one. */
static int ParameterOf(PyObject* parameter, PyObject* name, const char* what, long long* value) {
  if (PyIndex_Check(parameter)) {
    PyObject* index = PyNumber_Index(parameter);
    if (index != NULL) {
      *value = PyLong_AsLongLong(index);
      Py_DECREF(index);
      if (!(*value == -1 && PyErr_Occurred())) return 1;
    }
    PyErr_Clear();
    Warn(PyUnicode_FromFormat("%s(%R, %R): the parameter does not fit in 64 bits; ignored", what, name,
                              parameter));
    return 0;
  }
  PyObject* type = PyObject_GetAttrString((PyObject*)Py_TYPE(parameter), "__name__");
  Warn(PyUnicode_FromFormat("%s(%R, ...): the parameter must be an int, not %S; ignored", what, name,
                            type != NULL ? type : Py_None));
  Py_XDECREF(type);
  PyErr_Clear();
  return 0;
}

/* ---- td.region: a context manager and a decorator ---------------------- */

typedef struct {
  PyObject_HEAD
  td_site* site; /* NULL: the region is ignored (bad name or parameter) */
  PyObject* name;
  PyObject* parameter; /* NULL: no parameter */
  long long value;
} RegionObject;

static PyObject* Region_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  const Py_ssize_t nargs = PyTuple_Size(args);
  PyObject* name = nargs >= 1 ? PyTuple_GetItem(args, 0) : NULL;
  PyObject* parameter = nargs >= 2 ? PyTuple_GetItem(args, 1) : NULL;
  if (kwargs != NULL && PyDict_Size(kwargs) != 0) {
    PyObject* given = PyDict_GetItemString(kwargs, "parameter");
    if (given == NULL || PyDict_Size(kwargs) != 1 || parameter != NULL) {
      PyErr_SetString(PyExc_TypeError, "td.region(name, parameter=None): unexpected keyword argument");
      return NULL;
    }
    parameter = given;
  }
  if (name == NULL || nargs > 2) {
    PyErr_Format(PyExc_TypeError, "td.region(name, parameter=None) takes 1 or 2 arguments (%zd given)",
                 nargs);
    return NULL;
  }
  if (parameter == Py_None) parameter = NULL;
  allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
  RegionObject* self = (RegionObject*)alloc(type, 0);
  if (self == NULL) return NULL;
  Py_INCREF(name);
  self->name = name;
  self->parameter = NULL;
  self->value = 0;
  self->site = SiteFor(name, "td.region");
  if (parameter != NULL) {
    Py_INCREF(parameter);
    self->parameter = parameter;
    if (self->site != NULL && !ParameterOf(parameter, name, "td.region", &self->value)) self->site = NULL;
  }
  return (PyObject*)self;
}

static void Region_dealloc(PyObject* self) {
  RegionObject* region = (RegionObject*)self;
  PyTypeObject* type = Py_TYPE(self);
  Py_XDECREF(region->name);
  Py_XDECREF(region->parameter);
  freefunc free_object = (freefunc)PyType_GetSlot(type, Py_tp_free);
  free_object(self);
  Py_DECREF(type);
}

static PyObject* Region_enter(PyObject* self, PyObject* unused) {
  (void)unused;
  const RegionObject* region = (const RegionObject*)self;
  if (region->site != NULL && MarkersOn()) {
    if (region->parameter != NULL) {
      td_region_begin_p(region->site, region->value);
    } else {
      td_region_begin(region->site);
    }
  }
  Py_INCREF(self);
  return self;
}

/* Ends the region however the block is left; exceptions go on (returns False). */
static PyObject* Region_exit(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  (void)args;
  (void)nargs;
  const RegionObject* region = (const RegionObject*)self;
  if (region->site != NULL && MarkersOn()) {
    if (region->parameter != NULL) {
      td_region_end_p(region->site, region->value);
    } else {
      td_region_end(region->site);
    }
  }
  Py_INCREF(Py_False);
  return Py_False;
}

/* @td.region("name"): the wrapper is made in Python (td._decorate), so that
 * it is a real function (methods bind, functools.wraps keeps the name). */
static PyObject* Region_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  if (PyTuple_Size(args) != 1 || (kwargs != NULL && PyDict_Size(kwargs) != 0)) {
    PyErr_SetString(PyExc_TypeError, "a td.region decorates one function: @td.region(\"name\")");
    return NULL;
  }
  if (g_decorate == NULL) {
    PyErr_SetString(PyExc_RuntimeError, "td._td used without the td package");
    return NULL;
  }
  return PyObject_CallFunctionObjArgs(g_decorate, self, PyTuple_GetItem(args, 0), NULL);
}

static PyObject* Region_repr(PyObject* self) {
  const RegionObject* region = (const RegionObject*)self;
  if (region->parameter != NULL) return PyUnicode_FromFormat("td.region(%R, %R)", region->name, region->parameter);
  return PyUnicode_FromFormat("td.region(%R)", region->name);
}

static PyObject* Region_get_name(PyObject* self, void* unused) {
  (void)unused;
  PyObject* name = ((RegionObject*)self)->name;
  Py_INCREF(name);
  return name;
}

static PyObject* Region_get_parameter(PyObject* self, void* unused) {
  (void)unused;
  PyObject* parameter = ((RegionObject*)self)->parameter;
  if (parameter == NULL) parameter = Py_None;
  Py_INCREF(parameter);
  return parameter;
}

static PyMethodDef kRegionMethods[] = {
    {"__enter__", Region_enter, METH_NOARGS, "Begins the region."},
    {"__exit__", (PyCFunction)(void (*)(void))Region_exit, METH_FASTCALL,
     "Ends the region, also when an exception leaves the block (it is not suppressed)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef kRegionGetSet[] = {
    {"name", Region_get_name, NULL, "the region's name", NULL},
    {"parameter", Region_get_parameter, NULL, "the region's parameter, or None", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(kRegionDoc,
             "region(name, parameter=None)\n--\n\n"
             "A td region, as a context manager or a decorator:\n\n"
             "    with td.region(\"solve\"):\n        ...\n\n"
             "    @td.region(\"step\")\n    def step(): ...\n\n"
             "With an int parameter each value is its own region, \"name[value]\" (a sweep).\n"
             "The region ends however the block is left, exceptions included. A name that is\n"
             "not a str or holds a NUL character, or a parameter that is not an int, prints\n"
             "one warning line and the region is ignored; nothing is raised.");

static PyType_Slot kRegionSlots[] = {
    {Py_tp_new, Region_new},
    {Py_tp_dealloc, Region_dealloc},
    {Py_tp_call, Region_call},
    {Py_tp_repr, Region_repr},
    {Py_tp_methods, kRegionMethods},
    {Py_tp_getset, kRegionGetSet},
    {Py_tp_doc, (void*)kRegionDoc},
    {0, NULL},
};

static PyType_Spec kRegionSpec = {
    .name = "td.region",
    .basicsize = sizeof(RegionObject),
    .itemsize = 0,
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = kRegionSlots,
};

/* ---- td.begin / td.end ------------------------------------------------- */

/* (name, parameter=None), positional or parameter=…; 0 on a TypeError. */
static int MarkerArguments(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, const char* what,
                           PyObject** name, PyObject** parameter) {
  *name = nargs >= 1 ? args[0] : NULL;
  *parameter = nargs >= 2 ? args[1] : NULL;
  const Py_ssize_t nkw = kwnames != NULL ? PyTuple_Size(kwnames) : 0;
  if (nkw == 1 && *parameter == NULL &&
      PyUnicode_CompareWithASCIIString(PyTuple_GetItem(kwnames, 0), "parameter") == 0) {
    *parameter = args[nargs];
  } else if (nkw != 0) {
    PyErr_Format(PyExc_TypeError, "%s(name, parameter=None): unexpected keyword argument", what);
    return 0;
  }
  if (*name == NULL || nargs > 2) {
    PyErr_Format(PyExc_TypeError, "%s(name, parameter=None) takes 1 or 2 arguments (%zd given)", what,
                 nargs + nkw);
    return 0;
  }
  if (*parameter == Py_None) *parameter = NULL;
  return 1;
}

static PyObject* Begin(PyObject* module, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  (void)module;
  PyObject *name, *parameter;
  if (!MarkerArguments(args, nargs, kwnames, "td.begin", &name, &parameter)) return NULL;
  if (MarkersOn()) {
    td_site* site = SiteFor(name, "td.begin");
    long long value = 0;
    if (site != NULL && parameter == NULL) {
      td_region_begin(site);
    } else if (site != NULL && ParameterOf(parameter, name, "td.begin", &value)) {
      td_region_begin_p(site, value);
    }
  }
  Py_RETURN_NONE;
}

static PyObject* End(PyObject* module, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  (void)module;
  PyObject *name, *parameter;
  if (!MarkerArguments(args, nargs, kwnames, "td.end", &name, &parameter)) return NULL;
  if (MarkersOn()) {
    td_site* site = SiteFor(name, "td.end");
    long long value = 0;
    if (site != NULL && parameter == NULL) {
      td_region_end(site);
    } else if (site != NULL && ParameterOf(parameter, name, "td.end", &value)) {
      td_region_end_p(site, value);
    }
  }
  Py_RETURN_NONE;
}

/* sample(name, every): td_region_sample. Bad arguments warn, as markers do. */
static PyObject* Sample(PyObject* module, PyObject* args) {
  (void)module;
  PyObject* name = NULL;
  long long every = 0;
  if (!PyArg_ParseTuple(args, "OL:sample", &name, &every)) {
    PyErr_Clear();
    Warn(PyUnicode_FromString("td.sample(name, every) takes a str and an int: ignored"));
    Py_RETURN_NONE;
  }
  Py_ssize_t size = 0;
  const char* text = PyUnicode_Check(name) ? PyUnicode_AsUTF8AndSize(name, &size) : NULL;
  if (text == NULL || (size_t)size != strlen(text)) {
    PyErr_Clear();
    Warn(PyUnicode_FromString("td.sample: the name is not a str without NUL characters: ignored"));
    Py_RETURN_NONE;
  }
  /* Out of range goes to td as 0, which it refuses with one line. */
  td_region_sample(text, every < 1 || every > 0xffffffffLL ? 0u : (unsigned)every);
  Py_RETURN_NONE;
}

static PyObject* Init(PyObject* module, PyObject* unused) {
  (void)module;
  (void)unused;
  td_init();
  Py_RETURN_NONE;
}

static PyObject* Finalize(PyObject* module, PyObject* unused) {
  (void)module;
  (void)unused;
  td_finalize();
  Py_RETURN_NONE;
}

static PyObject* IsActive(PyObject* module, PyObject* unused) {
  (void)module;
  (void)unused;
  return PyBool_FromLong(td_is_active());
}

/* _set_program_name(name): td_set_program_name; td/__init__.py gives the
 * script's name, whose bytes surrogateescape gives back (os.fsdecode). */
static PyObject* SetProgramName(PyObject* module, PyObject* name) {
  (void)module;
  PyObject* bytes = PyUnicode_Check(name) ? PyUnicode_AsEncodedString(name, "utf-8", "surrogateescape") : NULL;
  char* data = NULL;
  Py_ssize_t size = 0;
  if (bytes == NULL || PyBytes_AsStringAndSize(bytes, &data, &size) < 0 || memchr(data, '\0', (size_t)size) != NULL) {
    Py_XDECREF(bytes);
    PyErr_Clear();
    PyErr_SetString(PyExc_ValueError, "_set_program_name takes a str without NUL characters");
    return NULL;
  }
  td_set_program_name(data);
  Py_DECREF(bytes);
  Py_RETURN_NONE;
}

static PyObject* SetDecorator(PyObject* module, PyObject* decorate) {
  (void)module;
  PyObject* old = g_decorate;
  Py_INCREF(decorate);
  g_decorate = decorate;
  Py_XDECREF(old);
  Py_RETURN_NONE;
}

static PyObject* WarnFromPython(PyObject* module, PyObject* message) {
  (void)module;
  if (!PyUnicode_Check(message)) {
    PyErr_SetString(PyExc_TypeError, "_warn takes a str");
    return NULL;
  }
  Py_INCREF(message);
  Warn(message);
  Py_RETURN_NONE;
}

static PyMethodDef kFunctions[] = {
    {"begin", (PyCFunction)(void (*)(void))Begin, METH_FASTCALL | METH_KEYWORDS,
     "begin(name, parameter=None)\n--\n\nBegins the region NAME on this thread (td_region_begin)."},
    {"end", (PyCFunction)(void (*)(void))End, METH_FASTCALL | METH_KEYWORDS,
     "end(name, parameter=None)\n--\n\nEnds the region NAME, which must be the innermost open one."},
    {"sample", Sample, METH_VARARGS,
     "sample(name, every)\n--\n\nReads region NAME's counters on one call in EVERY, counts every call and scales "
     "(td_region_sample; before the region is first entered)."},
    {"init", Init, METH_NOARGS, "init()\n--\n\nStarts td now (optional: the first marker does)."},
    {"finalize", Finalize, METH_NOARGS,
     "finalize()\n--\n\nWrites the reports now (otherwise at exit); later markers are ignored."},
    {"is_active", IsActive, METH_NOARGS,
     "is_active()\n--\n\nTrue while markers are recorded (not TD_DISABLE=1, not finalized)."},
    {"_set_decorator", SetDecorator, METH_O, NULL},
    {"_set_program_name", SetProgramName, METH_O, NULL},
    {"_warn", WarnFromPython, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef kModule = {
    PyModuleDef_HEAD_INIT, "td._td", "The markers of the td package (see help(td)).", -1, kFunctions,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__td(void) {
  PyObject* module = PyModule_Create(&kModule);
  if (module == NULL) return NULL;
  g_sites = PyDict_New();
  g_said = PySet_New(NULL);
  PyObject* region = PyType_FromSpec(&kRegionSpec);
  if (g_sites == NULL || g_said == NULL || region == NULL || PyModule_AddObject(module, "region", region) < 0) {
    Py_XDECREF(region);
    Py_DECREF(module);
    return NULL;
  }
  return module;
}
