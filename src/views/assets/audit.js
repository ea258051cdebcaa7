(function(){
var D=JSON.parse(document.getElementById('audit-data').textContent),P=50,page=0,list=[];
var fa=document.getElementById('f-attribution'),fv=document.getElementById('f-verdict'),fq=document.getElementById('f-search'),out=document.getElementById('cards'),info=document.getElementById('page-info');
function esc(s){return String(s==null?'':s).replace(/[&<>"']/g,function(c){return{'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c];});}
function badge(k,v){return v==null?'':'<span class="badge b-'+esc(v)+'" title="'+k+'">'+esc(v)+'</span>';}
function hms(t){t=Math.floor(t);var h=Math.floor(t/3600),m=Math.floor(t/60)%60,x=t%60;return (h<10?'0':'')+h+':'+(m<10?'0':'')+m+':'+(x<10?'0':'')+x;}
function spn(s){return s?' &middot; <span class="span" title="characters of the transcript, end exclusive">chars '+s.start+'&ndash;'+s.end+'</span>':'';}
function ctx(c){if(!c)return '';var m=c[1].map(function(s){return '<mark'+(s[1]?' class="d"':'')+'>'+esc(s[0])+'</mark>';}).join('');return '<div class="ctx">'+esc(c[0])+m+esc(c[2])+'</div>';}
function card(q){var p=D.pairs[q.p],a=p.answers[q.a],h='<div class="card" data-attribution="'+esc(q.attribution)+'" data-verdict="'+esc(q.verdict)+'">';
h+='<div class="meta">'+esc(q.id)+' &middot; '+esc(p.type)+' &middot; '+esc(q.source)+'</div>';
h+='<div class="q"><b>Q:</b> '+esc(p.question)+'</div><div class="q"><b>A</b> (score '+(a[1]==null?'n/a':a[1].toFixed(3))+'): '+esc(a[0])+'</div>';
h+='<div class="q"><b>Quote:</b> &ldquo;'+esc(q.quote)+'&rdquo;</div><div>'+badge('verdict',q.verdict)+badge('attribution',q.attribution)+(q.speaker?'<span class="badge">claimed: '+esc(q.speaker)+'</span>':'')+(q.span_speaker?'<span class="badge">said by: '+esc(q.span_speaker)+'</span>':'')+(q.time&&q.time.start!=null?'<span class="badge">at '+hms(q.time.start)+(q.time.end!=null?'&ndash;'+hms(q.time.end):'')+'</span>':'')+'<span class="meta">similarity '+q.sim+spn(q.span)+'</span></div>';
if(q.differences&&q.differences.length){h+='<div class="meta">ignored to find it: '+q.differences.map(function(d){return '<span class="diff" title="difference">'+esc(d)+'</span>';}).join('')+'</div>';}
h+=ctx(q.ctx);if(q.closest){h+='<div class="meta">closest passage (similarity '+q.sim+', below the threshold)'+spn(q.closest.span)+'</div>'+ctx(q.closest.ctx);}q.pieces.forEach(function(x,i){h+='<div class="meta">piece '+(i+1)+(x.speaker?' ('+esc(x.speaker)+')':'')+(x.time&&x.time.start!=null?' at '+hms(x.time.start):'')+spn(x.span)+'</div>'+ctx(x.ctx);});
if(q.other){h+='<div class="meta">found in '+esc(q.other.source)+' ('+esc(q.other.verdict)+(q.other.speaker?', said by '+esc(q.other.speaker):'')+')'+spn(q.other.span)+'</div>'+ctx(q.other.ctx);}
return h+'</div>';}
function apply(){var a=fa.value,v=fv.value,s=fq.value.toLowerCase();list=D.quotes.filter(function(q){if(a&&String(q.attribution)!==a)return false;if(v&&q.verdict!==v)return false;if(s){var p=D.pairs[q.p];return (q.quote+' '+p.question+' '+p.answers[q.a][0]+' '+q.id).toLowerCase().indexOf(s)>=0;}return true;});page=0;draw();}
function draw(){var n=Math.max(1,Math.ceil(list.length/P));page=Math.min(page,n-1);out.innerHTML=list.slice(page*P,page*P+P).map(card).join('');info.textContent='page '+(page+1)+' of '+n+' ('+list.length+(list.length===1?' quote':' quotes')+')';document.body.setAttribute('data-shown',list.length);document.body.setAttribute('data-cards',out.children.length);}
document.getElementById('prev').onclick=function(){if(page>0){page--;draw();}};document.getElementById('next').onclick=function(){page++;draw();};
[fa,fv].forEach(function(e){e.onchange=apply;});fq.oninput=apply;
var h=new URLSearchParams(location.hash.slice(1));if(h.get('attribution'))fa.value=h.get('attribution');if(h.get('verdict'))fv.value=h.get('verdict');if(h.get('q'))fq.value=h.get('q');
apply();document.body.setAttribute('data-ready-ms',Math.round(performance.now()));})();