/**
 * The Python program a sandbox session runs (`python3 -I -c <driver> <maxOutputChars>`). It keeps one namespace
 * for the whole session and speaks line-JSON on its original stdin/stdout, which it moves out of the way first:
 * fd 0 becomes `/dev/null` and fd 1 a copy of stderr, so the code it runs cannot write into the protocol by
 * accident. Host → driver: `{"t":"exec","code"}` and `{"t":"reply","ok","value"|"error"}`; driver → host:
 * `{"t":"ready"}`, `{"t":"call","name","payload"}` (the code blocks on `host_call(name, payload)` until the
 * reply) and `{"t":"done","ok","output","dropped","error"}`.
 */
export const SANDBOX_SESSION_DRIVER = String.raw`
import io, json, os, sys, traceback
_P_OUT = os.fdopen(os.dup(1), 'w', encoding='utf-8')
_P_IN = os.fdopen(os.dup(0), 'r', encoding='utf-8')
_null = os.open('/dev/null', os.O_RDONLY)
os.dup2(_null, 0)
os.close(_null)
os.dup2(2, 1)
sys.stdin = open(os.devnull, 'r')
_MAX = int(sys.argv[1]) if len(sys.argv) > 1 else 20000

class _Capture(io.TextIOBase):
    def __init__(self, limit):
        self.parts = []
        self.size = 0
        self.limit = limit
        self.dropped = 0
    def writable(self):
        return True
    def write(self, s):
        s = str(s)
        room = max(self.limit - self.size, 0)
        if room:
            self.parts.append(s[:room])
            self.size += min(len(s), room)
        if len(s) > room:
            self.dropped += len(s) - room
        return len(s)
    def text(self):
        return ''.join(self.parts)

def _send(obj):
    _P_OUT.write(json.dumps(obj) + '\n')
    _P_OUT.flush()

def _recv():
    line = _P_IN.readline()
    if not line:
        os._exit(0)
    return json.loads(line)

def host_call(name, payload=None):
    _send({'t': 'call', 'name': str(name), 'payload': payload})
    reply = _recv()
    if reply.get('t') != 'reply':
        raise RuntimeError('sandbox session protocol error')
    if not reply.get('ok'):
        raise RuntimeError(str(reply.get('error', 'host call failed')))
    return reply.get('value')

_NS = {'__name__': '__main__', '__builtins__': __builtins__, 'host_call': host_call}

def _run(code):
    cap = _Capture(_MAX)
    saved = (sys.stdout, sys.stderr)
    sys.stdout = cap
    sys.stderr = cap
    ok = True
    error = None
    try:
        exec(compile(code, '<step>', 'exec'), _NS)
    except BaseException:
        ok = False
        etype, value, tb = sys.exc_info()
        error = ''.join(traceback.format_exception(etype, value, tb.tb_next if tb else None))
    finally:
        sys.stdout, sys.stderr = saved
    _send({'t': 'done', 'ok': ok, 'output': cap.text(), 'dropped': cap.dropped, 'error': error})

_send({'t': 'ready'})
while True:
    _msg = _recv()
    if _msg.get('t') == 'exec':
        _run(str(_msg.get('code', '')))
`;
