"""YAMNet in NumPy, read from the project's converted weights file (scripts/fetch-model;
layout in Docs/Classification.md), with TensorFlow's log-mel front end: a second, independent
forward pass for diagnosis (classify_diagnose.py). Matches the committed ONNX Runtime logits
(Tests/SoundCompassClassifierTests/Fixtures) within 4e-4. Not used by the tool or the tests.
"""
import numpy as np, struct, os
DIR = os.environ.get("SOUNDCOMPASS_MODEL_DIR") or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "soundcompass")
W = os.path.join(DIR, "yamnet.weights")
def load(path=W):
    b = open(path,'rb').read(); assert b[:8]==b'SCYAMNET'
    ver,n = struct.unpack_from('<II',b,8); off=16; ts=[]
    for _ in range(n):
        r,=struct.unpack_from('<I',b,off); off+=4
        dims=struct.unpack_from('<%dI'%r,b,off); off+=4*r
        cnt=int(np.prod(dims)); ts.append(np.frombuffer(b,dtype='<f4',count=cnt,offset=off).reshape(dims).astype(np.float32)); off+=4*cnt
    return ts
T = load()
BLOCKS=[(64,1),(128,2),(128,1),(256,2),(256,1),(512,2)]+[(512,1)]*5+[(1024,2),(1024,1)]
def pad(x, stride):  # x [N,H,W,C]
    if stride==1: return np.pad(x,((0,0),(1,1),(1,1),(0,0)))
    H,W=x.shape[1:3]
    ph=max((-(-H//2)-1)*2+3-H,0); pw=max((-(-W//2)-1)*2+3-W,0)
    return np.pad(x,((0,0),(ph//2,ph-ph//2),(pw//2,pw-pw//2),(0,0)))
def taps(x, stride, H, W):
    for i in range(3):
        for j in range(3):
            yield i,j,x[:, i:i+stride*(H-1)+1:stride, j:j+stride*(W-1)+1:stride, :]
def logits(patches):
    x = np.asarray(patches,np.float32).reshape(-1,96,64,1)
    k,b = T[0],T[1]; H,W=48,32
    xp=pad(x,2); y=np.zeros((x.shape[0],H,W,32),np.float32)
    for i,j,s in taps(xp,2,H,W): y += s * k[:,0,i,j]
    x=np.maximum(y+b,0); t=2
    for C,st in BLOCKS:
        dk,db,pw,pb = T[t:t+4]; t+=4
        H,W=x.shape[1:3]; Ho,Wo=(H,W) if st==1 else (-(-H//2),-(-W//2))
        xp=pad(x,st); y=np.zeros((x.shape[0],Ho,Wo,x.shape[3]),np.float32)
        for i,j,s in taps(xp,st,Ho,Wo): y += s*dk[:,0,i,j]
        y=np.maximum(y+db,0)
        x=np.maximum(y@pw.T+pb,0)
    g=x.mean(axis=(1,2))
    return g@T[t].T+T[t+1]
def hz_to_mel(f): return 1127.0*np.log(1.0+f/700.0)
def mel_matrix(num_mel=64,num_bins=257,fs=16000,lo=125.0,hi=7500.0):
    freqs=np.linspace(0.0,fs/2,num_bins)[1:]; mel=hz_to_mel(freqs)[:,None]
    e=np.linspace(hz_to_mel(lo),hz_to_mel(hi),num_mel+2)
    w=np.maximum(0,np.minimum((mel-e[:-2])/(e[1:-1]-e[:-2]),(e[2:]-mel)/(e[2:]-e[1:-1])))
    return np.vstack([np.zeros((1,num_mel)),w])
MEL=mel_matrix()
WIN=0.5-0.5*np.cos(2*np.pi*np.arange(400)/400)
def stft(x):
    n=1+(len(x)-400)//160
    idx=np.arange(400)[None,:]+160*np.arange(n)[:,None]
    return np.fft.rfft(x[idx]*WIN,512,axis=1)
def logmel_from_mag(mag): return np.log(mag@MEL+0.001)
def patches_of(lm):
    out=[]; s=0
    while s+96<=len(lm): out.append(lm[s:s+96]); s+=48
    return np.array(out)
import csv
NAMES=[r[2] for r in list(csv.reader(open(os.path.join(DIR, "yamnet_class_map.csv"))))[1:]]
def top(lg,n=3):
    o=np.argsort(-lg)[:n]; return [(NAMES[i], float(1/(1+np.exp(-lg[i])))) for i in o]
