<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AboutDialog</name>
    <message>
        <source>Python {python} · Qt {qt} · PySide6 {pyside}</source>
        <translation>Python {python} · Qt {qt} · PySide6 {pyside}</translation>
    </message>
    <message>
        <source>About Desktop Copilot</source>
        <translation>关于 Desktop Copilot</translation>
    </message>
    <message>
        <source>Desktop Copilot {version}</source>
        <translation>Desktop Copilot {version}</translation>
    </message>
    <message>
        <source>A desktop chat client for Claude and other models.</source>
        <translation>面向 Claude 及其他模型的桌面聊天客户端。</translation>
    </message>
    <message>
        <source>Licence: {licence}</source>
        <translation>许可证：{licence}</translation>
    </message>
    <message>
        <source>Copy details</source>
        <translation>复制详细信息</translation>
    </message>
    <message>
        <source>Copy the versions, to paste into a bug report</source>
        <translation>复制版本信息，以便粘贴到错误报告中</translation>
    </message>
</context>
<context>
    <name>AnswerColumn</name>
    <message>
        <source>Writing…</source>
        <translation>正在写…</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Interrupted</source>
        <translation>已中断</translation>
    </message>
    <message>
        <source>Declined</source>
        <translation>已拒绝回答</translation>
    </message>
    <message>
        <source>Tool round limit</source>
        <translation>已达工具轮数上限</translation>
    </message>
    <message>
        <source>Stopped: repeated call</source>
        <translation>已停止：重复调用</translation>
    </message>
    <message>
        <source>Waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Continue with this</source>
        <translation>用这个继续</translation>
    </message>
    <message>
        <source>Stop this answer; what arrived is kept</source>
        <translation>停止这个回答；已收到的内容会保留</translation>
    </message>
    <message>
        <source>Go on with this answer; the others stay as versions of the reply</source>
        <translation>用这个回答继续；其他回答作为该回复的版本保留</translation>
    </message>
</context>
<context>
    <name>AnswerColumns</name>
    <message>
        <source>Several models answer this question. Pick the answer to continue with.</source>
        <translation>多个模型在回答这个问题。选一个回答继续对话。</translation>
    </message>
</context>
<context>
    <name>App</name>
    <message>
        <source>The MCP servers could not be started: {problem}</source>
        <translation>无法启动 MCP 服务器：{problem}</translation>
    </message>
</context>
<context>
    <name>ApprovalCard</name>
    <message>
        <source>Allow once</source>
        <translation>允许一次</translation>
    </message>
    <message>
        <source>Allow in this conversation</source>
        <translation>在此对话中允许</translation>
    </message>
    <message>
        <source>Always allow</source>
        <translation>始终允许</translation>
    </message>
    <message>
        <source>Deny…</source>
        <translation>拒绝…</translation>
    </message>
    <message>
        <source>Always allow commands like `{pattern}`</source>
        <translation>始终允许类似 `{pattern}` 的命令</translation>
    </message>
    <message>
        <source>Always allow writing files like `{pattern}`</source>
        <translation>始终允许写入类似 `{pattern}` 的文件</translation>
    </message>
    <message>
        <source>Always allow editing files like `{pattern}`</source>
        <translation>始终允许编辑类似 `{pattern}` 的文件</translation>
    </message>
    <message>
        <source>Always allow reading files like `{pattern}`</source>
        <translation>始终允许读取类似 `{pattern}` 的文件</translation>
    </message>
    <message>
        <source>Always allow fetching from `{pattern}`</source>
        <translation>始终允许从 `{pattern}` 获取</translation>
    </message>
    <message>
        <source>Always allow calls like `{pattern}`</source>
        <translation>始终允许类似 `{pattern}` 的调用</translation>
    </message>
    <message>
        <source>Run commands matching this pattern without asking (* matches anything):</source>
        <translation>无需询问即可运行匹配此模式的命令（* 匹配任意内容）：</translation>
    </message>
    <message>
        <source>Allow {tool} without asking for workspace paths matching this pattern (* matches anything):</source>
        <translation>对匹配此模式的工作区路径，无需询问即允许 {tool}（* 匹配任意内容）：</translation>
    </message>
    <message>
        <source>Fetch from hosts matching this pattern without asking (*.python.org matches its subdomains):</source>
        <translation>无需询问即可从匹配此模式的主机获取（*.python.org 匹配其子域名）：</translation>
    </message>
    <message>
        <source>Allow {tool} without asking for calls matching this pattern (* matches anything):</source>
        <translation>对匹配此模式的调用，无需询问即允许 {tool}（* 匹配任意内容）：</translation>
    </message>
    <message>
        <source>Allow all {count}</source>
        <translation>全部允许（{count} 个）</translation>
    </message>
    <message>
        <source>Deny all…</source>
        <translation>全部拒绝…</translation>
    </message>
    <message>
        <source>Reason for the model (optional):</source>
        <translation>告诉模型的理由（可选）：</translation>
    </message>
    <message>
        <source>Always allow calls like this</source>
        <translation>始终允许类似的调用</translation>
    </message>
</context>
<context>
    <name>ApprovalKeys</name>
    <message>
        <source>{tool} waits for your approval. {button}, button {number} of {count}. Enter presses it, Esc denies the call.</source>
        <translation>{tool} 等待你的批准。{button}，第 {number} 个按钮，共 {count} 个。按 Enter 执行，按 Esc 拒绝此调用。</translation>
    </message>
    <message>
        <source>A tool call waits for your approval: {tools}. Tab moves to its buttons.</source>
        <translation>有一个工具调用等待你的批准：{tools}。按 Tab 移到它的按钮。</translation>
    </message>
    <message numerus="yes">
        <source>%n tool calls wait for your approval: {tools}. Tab moves to their buttons.</source>
        <translation>
            <numerusform>有 %n 个工具调用等待你的批准：{tools}。按 Tab 移到它们的按钮。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ApprovalsIndicator</name>
    <message numerus="yes">
        <source>⏸ %n waiting for approval</source>
        <translation>
            <numerusform>⏸ %n 个等待批准</numerusform>
        </translation>
    </message>
    <message>
        <source>Tool calls waiting for your approval, in every conversation: choose one to answer it</source>
        <translation>所有对话中等待你批准的工具调用：选择一个去处理</translation>
    </message>
    <message>
        <source>{title}: {tool}</source>
        <translation>{title}：{tool}</translation>
    </message>
</context>
<context>
    <name>AssistantsPage</name>
    <message>
        <source>The name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>The system prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>The model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>The provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>{field} {problem}.</source>
        <translation>{field}：{problem}。</translation>
    </message>
    <message>
        <source>A value</source>
        <translation>某个值</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Duplicate</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Built in: duplicate it to make a copy you can change.</source>
        <translation>内置助手：复制一份即可修改。</translation>
    </message>
    <message>
        <source>What the model should know and how it should answer. Empty: the model gets no system prompt.</source>
        <translation>模型应了解的内容及回答方式。留空：不向模型发送系统提示词。</translation>
    </message>
    <message>
        <source>The provider&apos;s default model</source>
        <translation>服务商的默认模型</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> 个 token</translation>
    </message>
    <message>
        <source>Every tool switched on in Settings ▸ Tools</source>
        <translation>设置 ▸ 工具中已开启的所有工具</translation>
    </message>
    <message>
        <source>Only the tools ticked here</source>
        <translation>仅此处勾选的工具</translation>
    </message>
    <message>
        <source>Every source</source>
        <translation>所有来源</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Revert</source>
        <translation>还原</translation>
    </message>
    <message>
        <source>Default provider (Settings ▸ Providers)</source>
        <translation>默认服务商（设置 ▸ 服务商）</translation>
    </message>
    <message>
        <source>As in Settings ▸ Models</source>
        <translation>与设置 ▸ 模型相同</translation>
    </message>
    <message>
        <source>On</source>
        <translation>开</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation>思考</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>A tool still needs its key, and the file tools a workspace folder.</source>
        <translation>仍有工具缺少密钥，文件工具还需要工作区文件夹。</translation>
    </message>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>The knowledge sources its search_knowledge searches, by name, separated by commas; empty: every source switched on in Settings ▸ Knowledge.</source>
        <translation>其 search_knowledge 搜索的知识来源，按名称填写，以逗号分隔；留空：设置 ▸ 知识中已开启的所有来源。</translation>
    </message>
    <message>
        <source>Knowledge</source>
        <translation>知识</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>  · built in</source>
        <translation>  · 内置</translation>
    </message>
    <message>
        <source>{0} (not available)</source>
        <translation>{0}（不可用）</translation>
    </message>
    <message>
        <source>{0} (not available now)</source>
        <translation>{0}（当前不可用）</translation>
    </message>
    <message>
        <source>Not saved: {0}</source>
        <translation>未保存：{0}</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>已保存。</translation>
    </message>
    <message>
        <source>New assistant</source>
        <translation>新助手</translation>
    </message>
    <message>
        <source>Added.</source>
        <translation>已添加。</translation>
    </message>
    <message>
        <source>Deleted. Conversations started from it keep its settings.</source>
        <translation>已删除。由它开始的对话保留其设置。</translation>
    </message>
</context>
<context>
    <name>AttachmentChip</name>
    <message>
        <source>Remove {name}</source>
        <translation>移除 {name}</translation>
    </message>
</context>
<context>
    <name>AttachmentTray</name>
    <message>
        <source>Attach images, PDFs or text files (or drop them here, or paste an image)</source>
        <translation>附加图片、PDF 或文本文件（也可拖放到此处或粘贴图片）</translation>
    </message>
    <message>
        <source>Attach files</source>
        <translation>附加文件</translation>
    </message>
    <message>
        <source>Images, PDFs and text files (*)</source>
        <translation>图片、PDF 和文本文件 (*)</translation>
    </message>
    <message>
        <source>Images (*.png *.jpg *.jpeg *.gif *.webp)</source>
        <translation>图片 (*.png *.jpg *.jpeg *.gif *.webp)</translation>
    </message>
    <message>
        <source>PDF documents (*.pdf)</source>
        <translation>PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <source>Pasted image.png</source>
        <translation>粘贴的图片.png</translation>
    </message>
    <message>
        <source>Pasted image {n}.png</source>
        <translation>粘贴的图片 {n}.png</translation>
    </message>
    <message>
        <source>At most {count} files can go with one message; {name} was not added.</source>
        <translation>每条消息最多附加 {count} 个文件；未添加 {name}。</translation>
    </message>
</context>
<context>
    <name>Attachments</name>
    <message>
        <source>1 page</source>
        <translation>1 页</translation>
    </message>
    <message>
        <source>{count} pages</source>
        <translation>{count} 页</translation>
    </message>
</context>
<context>
    <name>BackgroundRuns</name>
    <message>
        <source>Approval needed: {title}</source>
        <translation>需要批准：{title}</translation>
    </message>
    <message numerus="yes">
        <source>%n tool call(s) wait for your approval.</source>
        <translation>
            <numerusform>%n 个工具调用等待你批准。</numerusform>
        </translation>
    </message>
    <message>
        <source>The reply is ready.</source>
        <translation>回复已完成。</translation>
    </message>
    <message>
        <source>The reply ended early ({outcome}).</source>
        <translation>回复提前结束（{outcome}）。</translation>
    </message>
</context>
<context>
    <name>ChangedSinceDialog</name>
    <message>
        <source>Files changed since</source>
        <translation>文件已被改动</translation>
    </message>
    <message>
        <source>Nothing was undone. Changed after this reply wrote them: {names}. Undoing would lose those changes; this is what changed since:</source>
        <translation>未撤销任何更改。这些文件在此回复写入后又被改动：{names}。撤销会丢失这些改动；以下是此后的改动：</translation>
    </message>
</context>
<context>
    <name>ChatController</name>
    <message>
        <source>Something went wrong: {error}</source>
        <translation>出错了：{error}</translation>
    </message>
    <message>
        <source>Repeated tool call</source>
        <translation>重复的工具调用</translation>
    </message>
    <message>
        <source>{tool} was called {count} times in a row with the same arguments.

Let it continue?</source>
        <translation>{tool} 已连续 {count} 次以相同参数被调用。

要让它继续吗？</translation>
    </message>
    <message>
        <source>Continue once</source>
        <translation>继续一次</translation>
    </message>
    <message>
        <source>Allow repeats in this conversation</source>
        <translation>在此对话中允许重复</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
</context>
<context>
    <name>ChooseModelsDialog</name>
    <message>
        <source>Ask several models</source>
        <translation>询问多个模型</translation>
    </message>
    <message>
        <source>Tick two to four models. Each answers the same message at once, side by side; you then pick the answer to go on with.</source>
        <translation>勾选两到四个模型。它们会同时并排回答同一条消息，然后由你选择用哪个回答继续。</translation>
    </message>
    <message>
        <source>Filter models</source>
        <translation>筛选模型</translation>
    </message>
    <message>
        <source>Ask</source>
        <translation>询问</translation>
    </message>
    <message numerus="yes">
        <source>%n ticked: four at most</source>
        <translation>
            <numerusform>已勾选 %n 个：最多四个</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n ticked</source>
        <translation>
            <numerusform>已勾选 %n 个</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>CodeBlock</name>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
</context>
<context>
    <name>Compaction</name>
    <message>
        <source>Compaction undone · %n messages sent whole again</source>
        <translation>已撤销压缩 · %n 条消息将重新完整发送</translation>
    </message>
    <message>
        <source>%n earlier messages left out of requests: no summary could be made</source>
        <translation>%n 条较早的消息未包含在请求中：无法生成摘要</translation>
    </message>
    <message>
        <source>Compacted %n messages · {before} → {after} tokens</source>
        <translation>已压缩 %n 条消息 · {before} → {after} 个 token</translation>
    </message>
    <message>
        <source>Undo compaction</source>
        <translation>撤销压缩</translation>
    </message>
    <message>
        <source>Sent to the model in place of these messages:</source>
        <translation>代替这些消息发送给模型的内容：</translation>
    </message>
    <message>
        <source>Started from a summary of a conversation that is no longer stored</source>
        <translation>基于一个已不再保存的对话的摘要开始</translation>
    </message>
    <message>
        <source>Started from a summary of «{title}»</source>
        <translation>基于«{title}»的摘要开始</translation>
    </message>
    <message>
        <source>Open the original</source>
        <translation>打开原对话</translation>
    </message>
</context>
<context>
    <name>CompactionActions</name>
    <message>
        <source>Compact now</source>
        <translation>立即压缩</translation>
    </message>
    <message>
        <source>Summarise the older messages so requests send the summary instead; the messages stay, and Undo compaction restores them</source>
        <translation>为较早的消息生成摘要，之后的请求改为发送摘要；这些消息仍会保留，“撤销压缩”可恢复它们</translation>
    </message>
    <message>
        <source>Compacting the conversation…</source>
        <translation>正在压缩对话…</translation>
    </message>
    <message>
        <source>Wait until the reply is written to undo a compaction.</source>
        <translation>请等回复生成完毕后再撤销压缩。</translation>
    </message>
    <message>
        <source>Compaction undone: those messages are sent whole again.</source>
        <translation>已撤销压缩：这些消息将重新完整发送。</translation>
    </message>
    <message>
        <source>No summary could be made: {error}</source>
        <translation>无法生成摘要：{error}</translation>
    </message>
    <message>
        <source>Writing a summary for the new chat…</source>
        <translation>正在为新对话撰写摘要…</translation>
    </message>
    <message>
        <source>Nothing to compact: only the last turns, which are always sent whole, are left.</source>
        <translation>没有可压缩的内容：只剩下最后几轮，而它们始终完整发送。</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>Enter to send · Shift+Enter for a new line · Esc to stop</source>
        <translation>Enter 发送 · Shift+Enter 换行 · Esc 停止</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Ask several models: send this message to two to four models at once and compare their answers side by side</source>
        <translation>询问多个模型：把这条消息同时发给两到四个模型，并排比较它们的回答</translation>
    </message>
    <message>
        <source>Ask several models</source>
        <translation>询问多个模型</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
</context>
<context>
    <name>ContextGroup</name>
    <message>
        <source>Compact when the request passes this share of the window</source>
        <translation>请求超过上下文窗口的此比例时压缩</translation>
    </message>
    <message>
        <source>Turns always sent whole</source>
        <translation>始终完整发送的轮数</translation>
    </message>
    <message>
        <source> turns</source>
        <translation> 轮</translation>
    </message>
    <message>
        <source>Summarise with</source>
        <translation>生成摘要的模型</translation>
    </message>
    <message>
        <source>The conversation&apos;s model</source>
        <translation>对话所用的模型</translation>
    </message>
    <message>
        <source>Summariser model</source>
        <translation>摘要模型</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Compact at</source>
        <translation>压缩阈值</translation>
    </message>
    <message>
        <source>Compact when the request passes this share of the model&apos;s context window.</source>
        <translation>请求超过模型上下文窗口的此比例时进行压缩。</translation>
    </message>
    <message>
        <source>Keep whole</source>
        <translation>完整保留</translation>
    </message>
    <message>
        <source>Always send the last turns whole: they are never compacted.</source>
        <translation>始终完整发送最后几轮：它们永远不会被压缩。</translation>
    </message>
    <message>
        <source>A cheaper model can write the summaries. Compacted messages are kept: the marker in the conversation opens them, and Undo compaction sends them whole again.</source>
        <translation>可以用更便宜的模型撰写摘要。被压缩的消息会保留：点击对话中的标记可展开它们，“撤销压缩”会重新完整发送它们。</translation>
    </message>
</context>
<context>
    <name>ContextMeter</name>
    <message>
        <source>Context window used</source>
        <translation>已用上下文窗口</translation>
    </message>
    <message>
        <source>{used} / {window}</source>
        <translation>{used} / {window}</translation>
    </message>
    <message>
        <source>Next request: {used} of {window} tokens ({percent} %)</source>
        <translation>下一个请求：{used} / {window} 个 token（{percent}%）</translation>
    </message>
    <message>
        <source>Next request: {used} tokens</source>
        <translation>下一个请求：{used} 个 token</translation>
    </message>
    <message>
        <source>System prompt and tools: {count}</source>
        <translation>系统提示词和工具：{count}</translation>
    </message>
    <message>
        <source>History: {count}</source>
        <translation>历史消息：{count}</translation>
    </message>
    <message>
        <source>Your message: {count}</source>
        <translation>你的消息：{count}</translation>
    </message>
    <message>
        <source>Attachments: {count}</source>
        <translation>附件：{count}</translation>
    </message>
    <message>
        <source>Reserved for the reply: {count}</source>
        <translation>为回复预留：{count}</translation>
    </message>
    <message>
        <source>Counted by the provider: {exact}; estimated: {estimated}</source>
        <translation>由服务商计数：{exact}；估算：{estimated}</translation>
    </message>
    <message>
        <source>All estimated: no usage the provider reported applies yet.</source>
        <translation>全部为估算：暂无适用的服务商报告用量。</translation>
    </message>
    <message>
        <source>Context window of {model}: {count} tokens</source>
        <translation>{model} 的上下文窗口：{count} 个 token</translation>
    </message>
    <message>
        <source>Change it in Settings ▸ Model profiles.</source>
        <translation>可在设置 ▸ 模型档案中更改。</translation>
    </message>
    <message>
        <source>The context window of this model is not known.</source>
        <translation>此模型的上下文窗口未知。</translation>
    </message>
</context>
<context>
    <name>ConversationDelegate</name>
    <message>
        <source>Replying…</source>
        <translation>正在回复…</translation>
    </message>
    <message>
        <source>The reply failed</source>
        <translation>回复失败</translation>
    </message>
    <message>
        <source>The reply was interrupted</source>
        <translation>回复被中断</translation>
    </message>
    <message>
        <source>New reply</source>
        <translation>新回复</translation>
    </message>
</context>
<context>
    <name>ConversationList</name>
    <message>
        <source>Today</source>
        <translation>今天</translation>
    </message>
    <message>
        <source>Yesterday</source>
        <translation>昨天</translation>
    </message>
    <message>
        <source>Previous 7 days</source>
        <translation>过去 7 天</translation>
    </message>
    <message>
        <source>Earlier</source>
        <translation>更早</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>just now</source>
        <translation>刚刚</translation>
    </message>
    <message>
        <source>{minutes} min ago</source>
        <translation>{minutes} 分钟前</translation>
    </message>
    <message>
        <source>{hours} h ago</source>
        <translation>{hours} 小时前</translation>
    </message>
    <message>
        <source>d MMM</source>
        <comment>a date in this year (QDate format)</comment>
        <translation>M月d日</translation>
    </message>
    <message>
        <source>d MMM yyyy</source>
        <comment>a date in another year (QDate format)</comment>
        <translation>yyyy年M月d日</translation>
    </message>
</context>
<context>
    <name>ConversationListView</name>
    <message>
        <source>Rename</source>
        <translation>重命名</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
</context>
<context>
    <name>ConversationTools</name>
    <message>
        <source>The tools this conversation offers the model</source>
        <translation>此对话提供给模型的工具</translation>
    </message>
    <message>
        <source>Tools {on}/{all}</source>
        <translation>工具 {on}/{all}</translation>
    </message>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>No tools are switched on (Settings ▸ Tools)</source>
        <translation>没有开启的工具（设置 ▸ 工具）</translation>
    </message>
    <message>
        <source>Offer all</source>
        <translation>全部提供</translation>
    </message>
    <message>
        <source>Offer none</source>
        <translation>全部不提供</translation>
    </message>
    <message>
        <source>Built-in</source>
        <translation>内置</translation>
    </message>
</context>
<context>
    <name>CoreMessages</name>
    <message>
        <source>Save it as PNG or JPEG and attach it again.</source>
        <translation>请另存为 PNG 或 JPEG 后重新附加。</translation>
    </message>
    <message>
        <source>a BMP image</source>
        <translation>BMP 图片</translation>
    </message>
    <message>
        <source>a TIFF image</source>
        <translation>TIFF 图片</translation>
    </message>
    <message>
        <source>Save it as PDF or plain text and attach that.</source>
        <translation>请另存为 PDF 或纯文本后附加。</translation>
    </message>
    <message>
        <source>a ZIP archive (or an Office document)</source>
        <translation>ZIP 压缩包（或 Office 文档）</translation>
    </message>
    <message>
        <source>an old Office document</source>
        <translation>旧版 Office 文档</translation>
    </message>
    <message>
        <source>{name} cannot be read ({strerror}). Check that the file exists.</source>
        <translation>无法读取 {name}（{strerror}）。请检查文件是否存在。</translation>
    </message>
    <message>
        <source>{name} is not a file. Attach files, not folders or devices.</source>
        <translation>{name} 不是文件。请附加文件，而不是文件夹或设备。</translation>
    </message>
    <message>
        <source>{name} is {st_size}; attachments can be at most {max_file_bytes}.</source>
        <translation>{name} 大小为 {st_size}；附件最大为 {max_file_bytes}。</translation>
    </message>
    <message>
        <source>{name} cannot be read ({strerror}).</source>
        <translation>无法读取 {name}（{strerror}）。</translation>
    </message>
    <message>
        <source>{name} is bigger than {max_file_bytes}, the most an attachment can be.</source>
        <translation>{name} 超过了附件的上限 {max_file_bytes}。</translation>
    </message>
    <message>
        <source>{name} is empty: there is nothing to attach.</source>
        <translation>{name} 是空文件：没有可附加的内容。</translation>
    </message>
    <message>
        <source>{name} is {data}; PDFs can be at most {max_pdf_bytes}. Split it and attach the part you need.</source>
        <translation>{name} 大小为 {data}；PDF 最大为 {max_pdf_bytes}。请拆分文件，只附加需要的部分。</translation>
    </message>
    <message>
        <source>{name} is {data}; images can be at most {max_image_bytes}. Scale it down and attach it again.</source>
        <translation>{name} 大小为 {data}；图片最大为 {max_image_bytes}。请缩小后重新附加。</translation>
    </message>
    <message>
        <source>{name} looks like an image but its size cannot be read: the file may be damaged.</source>
        <translation>{name} 看起来是图片，但无法读取其尺寸：文件可能已损坏。</translation>
    </message>
    <message>
        <source>{name} is {what}, which cannot be attached. {advice}</source>
        <translation>{name} 是{what}，无法附加。{advice}</translation>
    </message>
    <message>
        <source>{name} is not a text file, an image or a PDF. Attach images (PNG, JPEG, GIF, WebP), PDFs, or text and code files.</source>
        <translation>{name} 不是文本文件、图片或 PDF。请附加图片（PNG、JPEG、GIF、WebP）、PDF，或文本和代码文件。</translation>
    </message>
    <message>
        <source>{name} is {data} of text; a text file can be at most {max_text_bytes}. Attach the part you need.</source>
        <translation>{name} 含 {data} 文本；文本文件最大为 {max_text_bytes}。请只附加需要的部分。</translation>
    </message>
    <message>
        <source>{name} is not UTF-8 text, an image or a PDF. Save it as UTF-8 text (or PDF) and attach it again.</source>
        <translation>{name} 不是 UTF-8 文本、图片或 PDF。请另存为 UTF-8 文本（或 PDF）后重新附加。</translation>
    </message>
    <message>
        <source>The attachments of this conversation come to {total}; {provider} takes {request_bytes} in one request. Attach fewer or smaller files, or start a new conversation for them.</source>
        <translation>此对话的附件共 {total}；{provider} 单次请求最多接受 {request_bytes}。请附加更少或更小的文件，或为它们新建对话。</translation>
    </message>
    <message>
        <source>unusable address</source>
        <translation>不可用的地址</translation>
    </message>
    <message>
        <source>embedded data</source>
        <translation>内嵌数据</translation>
    </message>
    <message>
        <source>local file</source>
        <translation>本地文件</translation>
    </message>
    <message>
        <source>{scheme}: link</source>
        <translation>{scheme}: 链接</translation>
    </message>
    <message>
        <source>image</source>
        <translation>图片</translation>
    </message>
    <message>
        <source>🖼 {alt} ({where}, not shown)</source>
        <translation>🖼 {alt}（{where}，未显示）</translation>
    </message>
    <message>
        <source>The link contains invisible characters that change the direction of the text, so what it shows may not be where it goes.</source>
        <translation>此链接含有改变文字方向的不可见字符，显示的内容可能与实际打开的地址不同。</translation>
    </message>
    <message>
        <source>The address uses international characters and mixes alphabets: “{shown}” is really {host}, which may imitate another site.</source>
        <translation>此地址使用了国际化字符并混用了多种字母：“{shown}”实际是 {host}，可能在仿冒其他网站。</translation>
    </message>
    <message>
        <source>The address uses international characters: “{shown}” is really {host}, which may imitate another site.</source>
        <translation>此地址使用了国际化字符：“{shown}”实际是 {host}，可能在仿冒其他网站。</translation>
    </message>
    <message>
        <source>The address has a user name before the host: it opens {host}, not {user}.</source>
        <translation>此地址在主机名前带有用户名：它打开的是 {host}，而不是 {user}。</translation>
    </message>
    <message>
        <source>The link text shows {named}, but the link opens {host}.</source>
        <translation>链接文字显示的是 {named}，但实际打开的是 {host}。</translation>
    </message>
    <message>
        <source>This conversation searches only {own_sources}; “{asked}” is not one of them.</source>
        <translation>此对话只搜索 {own_sources}；“{asked}”不在其中。</translation>
    </message>
    <message>
        <source>encrypted DOCX (or an old Word file renamed .docx)</source>
        <translation>加密的 DOCX（或被改名为 .docx 的旧版 Word 文件）</translation>
    </message>
    <message>
        <source>the file could not be opened</source>
        <translation>无法打开文件</translation>
    </message>
    <message>
        <source>not a readable PDF file</source>
        <translation>不是可读取的 PDF 文件</translation>
    </message>
    <message>
        <source>encrypted PDF (needs a password)</source>
        <translation>加密的 PDF（需要密码）</translation>
    </message>
    <message>
        <source>encrypted PDF (unsupported security scheme)</source>
        <translation>加密的 PDF（不支持的加密方式）</translation>
    </message>
    <message>
        <source>PDF support is not installed (pypdfium2)</source>
        <translation>未安装 PDF 支持（pypdfium2）</translation>
    </message>
    <message>
        <source>no text layer (scanned PDF?)</source>
        <translation>没有文字层（扫描版 PDF？）</translation>
    </message>
    <message>
        <source>“{name}” cannot name a source: use 1–64 characters, without slashes.</source>
        <translation>“{name}”不能用作来源名称：请使用 1–64 个字符，不含斜杠。</translation>
    </message>
    <message>
        <source>{path} does not exist: give a folder or a file that is there.</source>
        <translation>{path} 不存在：请指定一个存在的文件夹或文件。</translation>
    </message>
    <message>
        <source>{root} is neither a folder nor a file.</source>
        <translation>{root} 既不是文件夹也不是文件。</translation>
    </message>
    <message>
        <source>A source is already called “{name}”: choose another name (--name).</source>
        <translation>已有名为“{name}”的来源：请换一个名称（--name）。</translation>
    </message>
    <message>
        <source>{root} is already the source “{name}”.</source>
        <translation>{root} 已是来源“{name}”。</translation>
    </message>
    <message>
        <source>No knowledge source is called “{name}” (sources: {known}).</source>
        <translation>没有名为“{name}”的知识来源（现有来源：{known}）。</translation>
    </message>
    <message>
        <source>larger than the {cap} MB size cap ({size} MB)</source>
        <translation>超过 {cap} MB 的大小上限（{size} MB）</translation>
    </message>
    <message>
        <source>could not be read: {why}</source>
        <translation>无法读取：{why}</translation>
    </message>
    <message>
        <source>could not be read ({error})</source>
        <translation>无法读取（{error}）</translation>
    </message>
    <message>
        <source>damaged PDF: {why}</source>
        <translation>PDF 已损坏：{why}</translation>
    </message>
    <message>
        <source>damaged DOCX: {why}</source>
        <translation>DOCX 已损坏：{why}</translation>
    </message>
    <message>
        <source>binary file</source>
        <translation>二进制文件</translation>
    </message>
    <message>
        <source>No switched-on knowledge source is called {names} (sources: {known}).</source>
        <translation>没有名为 {names} 的已开启知识来源（现有来源：{known}）。</translation>
    </message>
    <message>
        <source>Searched by words only: {exc}</source>
        <translation>仅按关键词搜索：{exc}</translation>
    </message>
    <message>
        <source>may hold secrets (left out on purpose)</source>
        <translation>可能含有机密信息（有意排除）</translation>
    </message>
    <message>
        <source>{name!r} cannot be a server name: use {name_rule}.</source>
        <translation>{name!r} 不能用作服务器名称：请使用{name_rule}。</translation>
    </message>
    <message>
        <source>{key!r} cannot be an environment variable name: it must be non-empty, without &apos;=&apos; (e.g. API_TOKEN).</source>
        <translation>{key!r} 不能用作环境变量名：名称不能为空，且不含“=”（例如 API_TOKEN）。</translation>
    </message>
    <message>
        <source>{key!r} cannot be a header name: use letters, digits and &apos;-&apos; (e.g. Authorization or X-Api-Key).</source>
        <translation>{key!r} 不能用作请求头名称：请使用字母、数字和“-”（例如 Authorization 或 X-Api-Key）。</translation>
    </message>
    <message>
        <source>the value of the {label} {key} contains a line break or a NUL character; give it on one line.</source>
        <translation>{label} {key} 的值含有换行符或 NUL 字符；请写在一行内。</translation>
    </message>
    <message>
        <source>the value of the {label} {key} holds a character that is not Unicode text.</source>
        <translation>{label} {key} 的值含有非 Unicode 文本的字符。</translation>
    </message>
    <message>
        <source>the value of the {label} {key} is {size:,} bytes long; a keyring entry holds at most {max_secret_bytes:,}.</source>
        <translation>{label} {key} 的值长 {size:,} 字节；密钥环条目最多容纳 {max_secret_bytes:,} 字节。</translation>
    </message>
    <message>
        <source>{exc} No MCP servers are used, and the app does not change the file until it is fixed or removed.</source>
        <translation>{exc} 不会使用任何 MCP 服务器；在该文件被修复或删除之前，应用不会改动它。</translation>
    </message>
    <message>
        <source>{path}: {invalid} MCP server(s) cannot be used: {listed}. Fix them in the file or remove them with `desktop-copilot mcp remove NAME`; the other servers work.</source>
        <translation>{path}：{invalid} 个 MCP 服务器无法使用：{listed}。请在文件中修复，或用 `desktop-copilot mcp remove NAME` 移除；其他服务器照常工作。</translation>
    </message>
    <message>
        <source>{problem} Nothing was changed.</source>
        <translation>{problem} 未做任何更改。</translation>
    </message>
    <message>
        <source>{path} could not be written ({strerror}); nothing was changed.</source>
        <translation>无法写入 {path}（{strerror}）；未做任何更改。</translation>
    </message>
    <message>
        <source>there is already an MCP server named {name!r}; remove it first (`desktop-copilot mcp remove {name}`) or pick another name.</source>
        <translation>已有名为 {name!r} 的 MCP 服务器；请先移除它（`desktop-copilot mcp remove {name}`）或换一个名称。</translation>
    </message>
    <message>
        <source>the MCP server {name!r} cannot be used ({invalid}); fix it in {path} first.</source>
        <translation>MCP 服务器 {name!r} 无法使用（{invalid}）；请先在 {path} 中修复。</translation>
    </message>
    <message>
        <source>there is no file {source}; give the path of a claude_desktop_config.json or an mcp.json.</source>
        <translation>文件 {source} 不存在；请给出 claude_desktop_config.json 或 mcp.json 的路径。</translation>
    </message>
    <message>
        <source>there is no MCP server named {name!r} in {path} (servers: {known}); `desktop-copilot mcp list` shows them.</source>
        <translation>{path} 中没有名为 {name!r} 的 MCP 服务器（现有服务器：{known}）；`desktop-copilot mcp list` 可列出它们。</translation>
    </message>
    <message>
        <source>the MCP server {name!r} is gone from {file}, but some of its secrets stay in the keyring: {failures}</source>
        <translation>MCP 服务器 {name!r} 已从 {file} 中移除，但它的部分机密仍留在密钥环中：{failures}</translation>
    </message>
    <message>
        <source>{path} cannot be read ({strerror}).</source>
        <translation>无法读取 {path}（{strerror}）。</translation>
    </message>
    <message>
        <source>{path} is not UTF-8 text.</source>
        <translation>{path} 不是 UTF-8 文本。</translation>
    </message>
    <message>
        <source>{path} is not valid JSON ({msg} at line {lineno}, column {colno}).{hint}</source>
        <translation>{path} 不是有效的 JSON（第 {lineno} 行第 {colno} 列：{msg}）。{hint}</translation>
    </message>
    <message>
        <source>{path} holds JSON nested too deeply to read.</source>
        <translation>{path} 中的 JSON 嵌套过深，无法读取。</translation>
    </message>
    <message>
        <source>{path} holds an escaped character that is not Unicode text (a lone surrogate such as \ud800).</source>
        <translation>{path} 含有非 Unicode 文本的转义字符（如单独的代理项 \ud800）。</translation>
    </message>
    <message>
        <source>{path} does not hold a JSON object; it should look like {{&quot;mcpServers&quot;: {{&quot;NAME&quot;: {{...}}}}}}.</source>
        <translation>{path} 中不是 JSON 对象；它应形如 {{&quot;mcpServers&quot;: {{&quot;NAME&quot;: {{...}}}}}}。</translation>
    </message>
    <message>
        <source>{path} has no &quot;mcpServers&quot; (or &quot;servers&quot;) object; is it an MCP configuration file?</source>
        <translation>{path} 中没有 &quot;mcpServers&quot;（或 &quot;servers&quot;）对象；它是 MCP 配置文件吗？</translation>
    </message>
    <message>
        <source>in {path}, &quot;{key}&quot; is not an object; it should map each server&apos;s name to its settings.</source>
        <translation>{path} 中的 &quot;{key}&quot; 不是对象；它应将每个服务器的名称映射到其设置。</translation>
    </message>
    <message>
        <source>its settings are not a JSON object (e.g. {&quot;command&quot;: &quot;npx&quot;, &quot;args&quot;: [...]} or {&quot;url&quot;: &quot;https://…&quot;})</source>
        <translation>其设置不是 JSON 对象（例如 {&quot;command&quot;: &quot;npx&quot;, &quot;args&quot;: [...]} 或 {&quot;url&quot;: &quot;https://…&quot;}）</translation>
    </message>
    <message>
        <source>the {where} value of {key} uses a variable such as ${{input:…}} or ${{env:…}} that this app does not expand; add the server with `desktop-copilot mcp add {name} …` giving the real value</source>
        <translation>{key} 的{where}值使用了本应用不会展开的变量（如 ${{input:…}} 或 ${{env:…}}）；请用 `desktop-copilot mcp add {name} …` 添加服务器并给出实际值</translation>
    </message>
    <message>
        <source>event</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>the {vendor} API</source>
        <translation>{vendor} API</translation>
    </message>
    <message>
        <source>no details</source>
        <translation>无详细信息</translation>
    </message>
    <message>
        <source>The reply was stopped before a decision.</source>
        <translation>回复在作出决定前已停止。</translation>
    </message>
    <message>
        <source>Stopped by the user.</source>
        <translation>已被用户停止。</translation>
    </message>
    <message>
        <source>The model declined to answer this request.</source>
        <translation>模型拒绝回答此请求。</translation>
    </message>
    <message>
        <source>Stopped after {limit} tool rounds.</source>
        <translation>已在 {limit} 轮工具调用后停止。</translation>
    </message>
    <message>
        <source>Stopped: {tool} was called {count} times in a row with the same arguments.</source>
        <translation>已停止：{tool} 以相同参数被连续调用了 {count} 次。</translation>
    </message>
    <message>
        <source>Stopped by the user. The partial reply was kept.</source>
        <translation>已被用户停止。已保留部分回复。</translation>
    </message>
    <message>
        <source>Allowed once</source>
        <translation>已允许一次</translation>
    </message>
    <message>
        <source>Allowed in this conversation</source>
        <translation>已在此对话中允许</translation>
    </message>
    <message>
        <source>Always allowed</source>
        <translation>已始终允许</translation>
    </message>
    <message>
        <source>Denied</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>Allowed, with a rule for calls like it</source>
        <translation>已允许，并为类似调用添加了规则</translation>
    </message>
    <message>
        <source>Read-only: ran without asking</source>
        <translation>只读：未询问即运行</translation>
    </message>
    <message>
        <source>Allowed by an earlier grant</source>
        <translation>已按之前的授权允许</translation>
    </message>
    <message>
        <source>Allowed by --yes</source>
        <translation>已由 --yes 允许</translation>
    </message>
    <message>
        <source>Blocked</source>
        <translation>已阻止</translation>
    </message>
    <message>
        <source>Allowed by a rule</source>
        <translation>已按规则允许</translation>
    </message>
    <message>
        <source>Denied by a rule</source>
        <translation>已按规则拒绝</translation>
    </message>
    <message>
        <source>it does not hold a JSON object</source>
        <translation>其中不是 JSON 对象</translation>
    </message>
    <message>
        <source>{path} could not be read ({reason}) nor moved aside ({error}); no tool is allowed without asking and no rule applies until it is fixed or removed.</source>
        <translation>无法读取 {path}（{reason}），也无法将其移到一旁（{error}）；在修复或删除该文件之前，任何工具都需要询问后才能运行，且不应用任何规则。</translation>
    </message>
    <message>
        <source>{path} could not be read ({reason}). It was kept as {moved_to}; no rule or standing permission applies until you add them again (Settings ▸ Permissions, or `desktop-copilot permissions`).</source>
        <translation>无法读取 {path}（{reason}）。该文件已保留为 {moved_to}；在你重新添加之前，不应用任何规则或长期许可（设置 ▸ 权限，或 `desktop-copilot permissions`）。</translation>
    </message>
    <message>
        <source>(No preview: {error})</source>
        <translation>（无预览：{error}）</translation>
    </message>
    <message>
        <source>a rule must be an object, not {kind}</source>
        <translation>规则必须是对象，而不是 {kind}</translation>
    </message>
    <message>
        <source>{action} is not an action: use allow, ask or deny.</source>
        <translation>{action} 不是有效的操作：请使用 allow、ask 或 deny。</translation>
    </message>
    <message>
        <source>A rule needs a tool: a name (shell, write_file), mcp:SERVER/TOOL, or a glob (mcp:notes/*, *).</source>
        <translation>规则需要指定工具：名称（shell、write_file）、mcp:SERVER/TOOL，或通配模式（mcp:notes/*、*）。</translation>
    </message>
    <message>
        <source>A rule cannot contain a NUL character.</source>
        <translation>规则不能包含 NUL 字符。</translation>
    </message>
    <message>
        <source>No usable keyring: {problem}. Keys set now are kept for this session only; set {variables} in the environment instead.</source>
        <translation>没有可用的密钥环：{problem}。现在设置的密钥只在本次会话中保留；请改为在环境变量中设置 {variables}。</translation>
    </message>
    <message>
        <source>The database was upgraded; the previous version was kept at {path}.</source>
        <translation>数据库已升级；旧版本保留在 {path}。</translation>
    </message>
    <message>
        <source>{where} is a file, not a folder</source>
        <translation>{where} 是文件，不是文件夹</translation>
    </message>
    <message>
        <source>{where} is read-only</source>
        <translation>{where} 是只读的</translation>
    </message>
    <message>
        <source>the disk that holds {where} is full</source>
        <translation>{where} 所在的磁盘已满</translation>
    </message>
    <message>
        <source>The conversation database {path} cannot be opened or created ({why}): this conversation is not saved.</source>
        <translation>无法打开或创建对话数据库 {path}（{why}）：本次对话不会被保存。</translation>
    </message>
    <message>
        <source>{label} at {url} lists no model. Load or pull one there, or name one (the model picker, or `ask --model`).</source>
        <translation>{url} 上的 {label} 没有列出任何模型。请在那里加载或拉取一个模型，或指定一个模型（模型选择器，或 `ask --model`）。</translation>
    </message>
    <message>
        <source>Only your own messages can be edited.</source>
        <translation>只能编辑你自己的消息。</translation>
    </message>
    <message>
        <source>There is no reply to continue.</source>
        <translation>没有可以继续的回复。</translation>
    </message>
    <message>
        <source>Versions are kept only for saved conversations.</source>
        <translation>只有已保存的对话才会保留版本。</translation>
    </message>
    <message>
        <source>That compaction is not in effect in this conversation.</source>
        <translation>该压缩在此对话中未生效。</translation>
    </message>
    <message>
        <source>There is no message to reply to yet.</source>
        <translation>还没有可以回复的消息。</translation>
    </message>
    <message>
        <source>That message is not in this conversation.</source>
        <translation>该消息不在此对话中。</translation>
    </message>
    <message>
        <source>That assistant no longer exists.</source>
        <translation>该助手已不存在。</translation>
    </message>
    <message>
        <source>Built-in assistants cannot be changed. Duplicate one and change the copy.</source>
        <translation>内置助手不能修改。请复制一个，然后修改副本。</translation>
    </message>
    <message>
        <source>Fix or remove the file, then try again.</source>
        <translation>请修复或删除该文件，然后重试。</translation>
    </message>
    <message>
        <source>The assistants could not be saved to {path} ({error}).</source>
        <translation>无法将助手保存到 {path}（{error}）。</translation>
    </message>
    <message>
        <source>Your assistants in {path} could not be read ({error}); only the built-in ones are shown.</source>
        <translation>无法读取 {path} 中你的助手（{error}）；只显示内置助手。</translation>
    </message>
    <message>
        <source>it is not valid JSON text</source>
        <translation>其中不是有效的 JSON 文本</translation>
    </message>
    <message>
        <source>it does not hold a list of assistants</source>
        <translation>其中不是助手列表</translation>
    </message>
    <message>
        <source>{count} of its entries are not valid</source>
        <translation>其中有 {count} 个条目无效</translation>
    </message>
    <message>
        <source>{count} of its entries is not valid</source>
        <translation>其中有 {count} 个条目无效</translation>
    </message>
    <message>
        <source>In {path}, the temperature or top-p of {names} was not a usable value; the model&apos;s default is used instead. Set it again here if you want another.</source>
        <translation>在 {path} 中，{names} 的温度或 top-p 不是可用的值；已改用模型的默认值。如需其他值，请在此重新设置。</translation>
    </message>
    <message>
        <source>Your assistants in {path} were not all used because {reason}, and the file could not be moved aside ({error}).</source>
        <translation>{path} 中你的助手未全部使用，原因是{reason}，且该文件无法移到一旁（{error}）。</translation>
    </message>
    <message>
        <source>Your assistants in {path} were not all used because {reason}. The file was kept as {aside}.</source>
        <translation>{path} 中你的助手未全部使用，原因是{reason}。该文件已保留为 {aside}。</translation>
    </message>
    <message>
        <source>it cannot be read ({error})</source>
        <translation>它无法读取（{error}）</translation>
    </message>
    <message>
        <source>it is not UTF-8 text</source>
        <translation>它不是 UTF-8 文本</translation>
    </message>
    <message>
        <source>it is not valid JSON ({error} at line {line}, column {column})</source>
        <translation>它不是有效的 JSON（第 {line} 行第 {column} 列：{error}）</translation>
    </message>
    <message>
        <source>its JSON is nested too deeply to read</source>
        <translation>它的 JSON 嵌套过深，无法读取</translation>
    </message>
    <message>
        <source>it holds an escaped character that is not Unicode text (a lone surrogate such as \ud800)</source>
        <translation>它包含一个不是 Unicode 文本的转义字符（如 \ud800 这样的孤立代理项）</translation>
    </message>
    <message>
        <source>it has invalid values ({details})</source>
        <translation>它包含无效的值（{details}）</translation>
    </message>
    <message>
        <source>{path} could not be read or moved aside, so it is not overwritten.</source>
        <translation>{path} 无法读取或移到一旁，因此不会覆盖它。</translation>
    </message>
    <message>
        <source>The settings file {path} was not used because {reason}, and it could not be moved aside ({error}). Default settings are used; fix or remove the file to save settings.</source>
        <translation>设置文件 {path} 未被使用，原因是{reason}，且它无法移到一旁（{error}）。当前使用默认设置；请修复或删除该文件以保存设置。</translation>
    </message>
    <message>
        <source>The settings file {path} was not used because {reason}. It was kept as {aside}; default settings are used.</source>
        <translation>设置文件 {path} 未被使用，原因是{reason}。该文件已保留为 {aside}；当前使用默认设置。</translation>
    </message>
    <message>
        <source>compacted {count} messages ({before} → {after} tokens)</source>
        <translation>已压缩 {count} 条消息（{before} → {after} 个 token）</translation>
    </message>
    <message>
        <source>compacted {count} messages ({before} → {after} tokens) by leaving them out of requests: the context window was full and no summary could be made ({why}). They are kept, and Undo compaction sends them again.</source>
        <translation>已压缩 {count} 条消息（{before} → {after} 个 token），方式是不再在请求中发送它们：上下文窗口已满，且无法生成摘要（{why}）。这些消息仍会保留，“撤销压缩”会重新发送它们。</translation>
    </message>
    <message>
        <source>compacted {count} messages ({before} → {after} tokens) by leaving them out of requests: the context window was full and no summary could be made. They are kept, and Undo compaction sends them again.</source>
        <translation>已压缩 {count} 条消息（{before} → {after} 个 token），方式是不再在请求中发送它们：上下文窗口已满，且无法生成摘要。这些消息仍会保留，“撤销压缩”会重新发送它们。</translation>
    </message>
    <message>
        <source>The conversation is still longer than the model&apos;s context window after its older turns were compacted ({answered}).</source>
        <translation>压缩较早的轮次后，对话仍然超出模型的上下文窗口（{answered}）。</translation>
    </message>
    <message>
        <source>The conversation is still longer than the model&apos;s context window after its older turns were compacted.</source>
        <translation>压缩较早的轮次后，对话仍然超出模型的上下文窗口。</translation>
    </message>
    <message>
        <source>The conversation is longer than the model&apos;s context window, and no older turns could be compacted ({answered}).</source>
        <translation>对话超出了模型的上下文窗口，且没有可以压缩的较早轮次（{answered}）。</translation>
    </message>
    <message>
        <source>The conversation is longer than the model&apos;s context window, and no older turns could be compacted.</source>
        <translation>对话超出了模型的上下文窗口，且没有可以压缩的较早轮次。</translation>
    </message>
    <message>
        <source>Use Compact now to summarise more of it, or New chat from a summary to go on in a new conversation; every message is kept.</source>
        <translation>使用“立即压缩”摘要更多内容，或使用“从摘要新建对话”在新对话中继续；所有消息都会保留。</translation>
    </message>
    <message>
        <source>The conversation is longer than the model&apos;s context window ({said}). Older turns are compacted into a summary and the request is sent again; if it still does not fit, use Compact now or start a new chat from a summary.</source>
        <translation>对话超出了模型的上下文窗口（{said}）。较早的轮次会被压缩为摘要，然后重新发送请求；如果仍然放不下，请使用“立即压缩”，或从摘要新建对话。</translation>
    </message>
    <message>
        <source>the summary request failed</source>
        <translation>摘要请求失败</translation>
    </message>
    <message>
        <source>the model declined to write the summary</source>
        <translation>模型拒绝撰写摘要</translation>
    </message>
    <message>
        <source>the summary came back empty</source>
        <translation>返回的摘要为空</translation>
    </message>
    <message>
        <source>the conversation has no messages to summarise</source>
        <translation>对话中没有可以摘要的消息</translation>
    </message>
    <message>
        <source>The temperature must be from 0 to {most}, not {value}. Choose a value in that range (lower gives steadier answers, higher more varied ones), or leave it out to use the model&apos;s default.</source>
        <translation>温度必须在 0 到 {most} 之间，而不是 {value}。请在此范围内选择一个值（较低的值回答更稳定，较高的值回答更多样），或留空以使用模型的默认值。</translation>
    </message>
    <message>
        <source>Top-p must be more than 0 and at most {most}, not {value}. Choose a value in that range (such as 0.9), or leave it out to use the model&apos;s default.</source>
        <translation>Top-p 必须大于 0 且不超过 {most}，而不是 {value}。请在此范围内选择一个值（如 0.9），或留空以使用模型的默认值。</translation>
    </message>
    <message>
        <source>Nothing was undone: {names} was changed after this reply wrote it; undoing would lose those changes.</source>
        <translation>未撤销任何内容：{names} 在此回复写入后又被修改过；撤销会丢失这些修改。</translation>
    </message>
    <message>
        <source>Nothing was undone: {names} were changed after this reply wrote them; undoing would lose those changes.</source>
        <translation>未撤销任何内容：{names} 在此回复写入后又被修改过；撤销会丢失这些修改。</translation>
    </message>
    <message>
        <source>No reply in this conversation changed files.</source>
        <translation>此对话中没有回复修改过文件。</translation>
    </message>
    <message>
        <source>This reply changed no files.</source>
        <translation>此回复没有修改任何文件。</translation>
    </message>
    <message>
        <source>This reply&apos;s file changes were undone already.</source>
        <translation>此回复的文件修改已经撤销过了。</translation>
    </message>
    <message>
        <source>{name}: changed since the reply wrote it (larger than {size} MB; not shown).</source>
        <translation>{name}：在回复写入后已被修改（大于 {size} MB；不显示）。</translation>
    </message>
    <message>
        <source>{name}: removed since the reply wrote it (what the reply wrote was too large to keep; not shown).</source>
        <translation>{name}：在回复写入后已被删除（回复写入的内容太大，未保留；不显示）。</translation>
    </message>
    <message>
        <source>{name}: changed since the reply wrote it (what the reply wrote was too large to keep; not shown).</source>
        <translation>{name}：在回复写入后已被修改（回复写入的内容太大，未保留；不显示）。</translation>
    </message>
    <message>
        <source>{name}: binary content changed since the reply wrote it.</source>
        <translation>{name}：二进制内容在回复写入后已被修改。</translation>
    </message>
    <message>
        <source>{name}: changed since the reply wrote it (the same text, other bytes: line endings or encoding).</source>
        <translation>{name}：在回复写入后已被修改（文本相同，字节不同：换行符或编码）。</translation>
    </message>
    <message>
        <source>The key is empty.</source>
        <translation>密钥为空。</translation>
    </message>
    <message>
        <source>The key contains spaces, line breaks or control characters; paste only the key.</source>
        <translation>密钥包含空格、换行符或控制字符；请只粘贴密钥本身。</translation>
    </message>
    <message>
        <source>The key is {size} bytes long; a keyring entry holds at most {most} bytes.</source>
        <translation>密钥长 {size} 字节；密钥环条目最多只能保存 {most} 字节。</translation>
    </message>
    <message>
        <source>no system keyring was found; on Linux, install and unlock a Secret Service such as GNOME Keyring or KWallet</source>
        <translation>未找到系统密钥环；在 Linux 上，请安装并解锁 GNOME Keyring 或 KWallet 等 Secret Service</translation>
    </message>
    <message>
        <source>not usable: {problem}</source>
        <translation>不可用：{problem}</translation>
    </message>
    <message>
        <source>{backend}, not usable: {problem}</source>
        <translation>{backend}，不可用：{problem}</translation>
    </message>
    <message>
        <source>the keyring is locked and was not unlocked (was the unlock prompt dismissed?)</source>
        <translation>密钥环已锁定且未解锁（是否关闭了解锁提示？）</translation>
    </message>
    <message>
        <source>the keyring service did not answer over D-Bus ({detail})</source>
        <translation>密钥环服务没有通过 D-Bus 响应（{detail}）</translation>
    </message>
    <message>
        <source>the keyring is switched off (keyring&apos;s null backend is configured)</source>
        <translation>密钥环已关闭（配置了 keyring 的 null 后端）</translation>
    </message>
    <message>
        <source>the configured backend {backend} keeps keys in a file, not in a system keyring</source>
        <translation>配置的后端 {backend} 将密钥保存在文件中，而不是系统密钥环中</translation>
    </message>
    <message>
        <source>No usable keyring: {problem}. The {key} is kept for this session only.</source>
        <translation>没有可用的密钥环：{problem}。{key} 只在本次会话中保留。</translation>
    </message>
    <message>
        <source>{backend} did not store the {key}: {failure}</source>
        <translation>{backend} 未能保存 {key}：{failure}</translation>
    </message>
    <message>
        <source>The {key} is stored in {backend}.</source>
        <translation>{key} 已保存在 {backend} 中。</translation>
    </message>
    <message>
        <source>{backend} did not delete the {key}: {failure}</source>
        <translation>{backend} 未能删除 {key}：{failure}</translation>
    </message>
    <message>
        <source>the keyring could not be loaded: {error}</source>
        <translation>无法加载密钥环：{error}</translation>
    </message>
    <message>
        <source>the passages are not embedded with {model} yet</source>
        <translation>段落尚未用 {model} 生成嵌入</translation>
    </message>
    <message>
        <source>{Subject} gave vectors of different lengths for {model}. Index again.</source>
        <translation>{Subject} 为 {model} 返回了长度不一的向量。请重新索引。</translation>
    </message>
    <message>
        <source>Could not reach {noun} at {url} ({failure}). Check that it is running and that the URL is right.</source>
        <translation>无法连接 {url} 上的 {noun}（{failure}）。请检查它是否在运行，以及 URL 是否正确。</translation>
    </message>
    <message>
        <source>{Subject} answered with something that is not JSON. Check the base URL {url}.</source>
        <translation>{Subject} 返回的内容不是 JSON。请检查基础 URL {url}。</translation>
    </message>
    <message>
        <source>{Subject} answered without embeddings ({error}). Check that {model} is an embedding model.</source>
        <translation>{Subject} 的响应中没有嵌入向量（{error}）。请检查 {model} 是否为嵌入模型。</translation>
    </message>
    <message>
        <source>{Subject} refused the key ({status}: {detail}).</source>
        <translation>{Subject} 拒绝了密钥（{status}: {detail}）。</translation>
    </message>
    <message>
        <source>{Subject} has no embedding model {model} ({status}: {detail}). Pull it with `ollama pull {name}`, or check the base URL {url}.</source>
        <translation>{Subject} 没有嵌入模型 {model}（{status}: {detail}）。请用 `ollama pull {name}` 拉取，或检查基础 URL {url}。</translation>
    </message>
    <message>
        <source>{Subject} has no embedding model {model} ({status}: {detail}). Check the model name and the base URL {url}.</source>
        <translation>{Subject} 没有嵌入模型 {model}（{status}: {detail}）。请检查模型名称和基础 URL {url}。</translation>
    </message>
    <message>
        <source>{Subject} asks to wait {seconds} s before more requests ({failure}). Try again later.</source>
        <translation>{Subject} 要求等待 {seconds} 秒后再发送请求（{failure}）。请稍后重试。</translation>
    </message>
    <message>
        <source>1 try</source>
        <translation>1 次尝试</translation>
    </message>
    <message>
        <source>{count} tries</source>
        <translation>{count} 次尝试</translation>
    </message>
    <message>
        <source>{Subject} kept limiting the rate of requests (429) after {tries}. Try again later.</source>
        <translation>经过{tries}后，{Subject} 仍在限制请求速率（429）。请稍后重试。</translation>
    </message>
    <message>
        <source>{Subject} is busy or failing ({status}) after {tries}. Try again later.</source>
        <translation>经过{tries}后，{Subject} 仍然繁忙或出错（{status}）。请稍后重试。</translation>
    </message>
    <message>
        <source>The connection to {noun} at {url} failed ({failure}) after {tries}. Check that it is running.</source>
        <translation>经过{tries}后，与 {url} 上的 {noun} 的连接仍然失败（{failure}）。请检查它是否在运行。</translation>
    </message>
    <message>
        <source>Give this embedding server its key, or check the base URL.</source>
        <translation>请为此嵌入服务器提供密钥，或检查基础 URL。</translation>
    </message>
    <message>
        <source>Add the {key} in Settings (or {variable}).</source>
        <translation>请在设置（或 {variable}）中添加 {key}。</translation>
    </message>
    <message>
        <source>Check the {key} in Settings (or {variable}).</source>
        <translation>请检查设置（或 {variable}）中的 {key}。</translation>
    </message>
    <message>
        <source>the embedding server {host}</source>
        <translation>嵌入服务器 {host}</translation>
    </message>
    <message>
        <source>the source cannot be read: {error}</source>
        <translation>无法读取该来源：{error}</translation>
    </message>
    <message>
        <source>none yet</source>
        <translation>暂无</translation>
    </message>
    <message>
        <source>none is switched on</source>
        <translation>没有已启用的来源</translation>
    </message>
    <message>
        <source>indexing failed; see the log</source>
        <translation>索引失败；请查看日志</translation>
    </message>
    <message>
        <source>Something went wrong: {detail}. Details are in the log: {where}</source>
        <translation>出现了问题：{detail}。详细信息见日志：{where}</translation>
    </message>
    <message>
        <source>Something went wrong: {detail}.</source>
        <translation>出现了问题：{detail}。</translation>
    </message>
    <message>
        <source>the keyring did not give the MCP secret {entry}: {failure}</source>
        <translation>密钥环未能提供 MCP 密钥 {entry}：{failure}</translation>
    </message>
    <message>
        <source>the keyring did not store the MCP secret {entry}: {failure}</source>
        <translation>密钥环未能保存 MCP 密钥 {entry}：{failure}</translation>
    </message>
    <message>
        <source>the keyring did not delete the MCP secret {entry}: {failure}</source>
        <translation>密钥环未能删除 MCP 密钥 {entry}：{failure}</translation>
    </message>
    <message>
        <source>Nothing was read.</source>
        <translation>未读取任何内容。</translation>
    </message>
    <message>
        <source>Nothing was stored.</source>
        <translation>未保存任何内容。</translation>
    </message>
    <message>
        <source>Nothing was deleted.</source>
        <translation>未删除任何内容。</translation>
    </message>
    <message>
        <source>no keyring: secrets for MCP servers cannot be stored, read or deleted ({problem}).</source>
        <translation>没有密钥环：无法保存、读取或删除 MCP 服务器的密钥（{problem}）。</translation>
    </message>
    <message>
        <source>Install and unlock a system keyring (GNOME Keyring, KWallet, macOS Keychain or Windows Credential Manager) and try again.</source>
        <translation>请安装并解锁系统密钥环（GNOME Keyring、KWallet、macOS 钥匙串或 Windows 凭据管理器），然后重试。</translation>
    </message>
    <message>
        <source>give either a command (a local server) or a url (a remote server)</source>
        <translation>请提供 command（本地服务器）或 url（远程服务器）其中之一</translation>
    </message>
    <message>
        <source>the url must start with http:// or https://</source>
        <translation>url 必须以 http:// 或 https:// 开头</translation>
    </message>
    <message>
        <source>unknown provider {provider}; known providers: {known}</source>
        <translation>未知的提供方 {provider}；已知的提供方：{known}</translation>
    </message>
    <message>
        <source>The API reported an error mid-reply ({kind}: {detail}).</source>
        <translation>API 在回复中途报告了错误（{kind}: {detail}）。</translation>
    </message>
    <message>
        <source>Claude declined to answer this request (policy category: {category}).</source>
        <translation>Claude 拒绝回答此请求（政策类别：{category}）。</translation>
    </message>
    <message>
        <source>Claude declined to answer this request.</source>
        <translation>Claude 拒绝回答此请求。</translation>
    </message>
    <message>
        <source>The request is left out of later turns of this conversation; rephrase it or start anew.</source>
        <translation>此请求不会包含在本对话之后的轮次中；请换个说法，或重新开始。</translation>
    </message>
    <message>
        <source>{name}: {where} takes no images. Choose a model that sees images, or describe the image in words.</source>
        <translation>{name}：{where} 不接受图片。请选择能看图的模型，或用文字描述图片。</translation>
    </message>
    <message>
        <source>{name}: {provider} takes {kinds} images, not {media_type}. Save it as PNG or JPEG and attach it again.</source>
        <translation>{name}：{provider} 接受 {kinds} 图片，不接受 {media_type}。请另存为 PNG 或 JPEG 后重新附加。</translation>
    </message>
    <message>
        <source>{name} is {size}; {provider} takes images up to {image_bytes}. Scale it down or save it as JPEG, then attach it again.</source>
        <translation>{name} 大小为 {size}；{provider} 接受的图片最大为 {image_bytes}。请缩小或另存为 JPEG 后重新附加。</translation>
    </message>
    <message>
        <source>{name} is {width}×{height} pixels; {provider} takes at most {image_side} pixels a side. Scale it down and attach it again.</source>
        <translation>{name} 为 {width}×{height} 像素；{provider} 每边最多接受 {image_side} 像素。请缩小后重新附加。</translation>
    </message>
    <message>
        <source>{name}: {provider} cannot read PDFs. Copy the text you need into the message, or choose Anthropic, OpenAI or Gemini for this conversation.</source>
        <translation>{name}：{provider} 无法读取 PDF。请将需要的文字复制到消息中，或为此对话选择 Anthropic、OpenAI 或 Gemini。</translation>
    </message>
    <message>
        <source>{name} is {size}; {provider} takes PDFs up to {pdf_bytes}. Split it and attach the part you need.</source>
        <translation>{name} 大小为 {size}；{provider} 接受的 PDF 最大为 {pdf_bytes}。请拆分文件，只附加需要的部分。</translation>
    </message>
    <message>
        <source>{name} has {pages} pages; {provider} reads at most {pdf_pages} pages. Split it and attach the part you need.</source>
        <translation>{name} 共 {pages} 页；{provider} 最多读取 {pdf_pages} 页。请拆分文件，只附加需要的部分。</translation>
    </message>
    <message>
        <source> {server} asks to wait {seconds} s.</source>
        <translation>{server} 要求等待 {seconds} 秒。</translation>
    </message>
    <message>
        <source>chunk</source>
        <translation>数据块</translation>
    </message>
    <message>
        <source>An error occurred during streaming</source>
        <translation>流式传输时出错</translation>
    </message>
    <message>
        <source>The {vendor} API reported an error ({what}).</source>
        <translation>{vendor} API 报告了错误（{what}）。</translation>
    </message>
    <message>
        <source>The {vendor} API reported an error mid-reply ({what}).</source>
        <translation>{vendor} API 在回复中途报告了错误（{what}）。</translation>
    </message>
    <message>
        <source>The provider&apos;s content filter stopped this reply.</source>
        <translation>提供方的内容过滤器中止了此回复。</translation>
    </message>
    <message>
        <source>The provider ran out of capacity and cut this reply short. Retry in a little while.</source>
        <translation>提供方的容量不足，提前截断了此回复。请稍后重试。</translation>
    </message>
    <message>
        <source>The provider&apos;s model failed while writing this reply. Retry in a little while.</source>
        <translation>提供方的模型在撰写此回复时出错。请稍后重试。</translation>
    </message>
    <message>
        <source>{Subject} did not answer within {seconds} s. The server may be overloaded or unreachable; Retry, or check the connection and the base URL.</source>
        <translation>{Subject} 在 {seconds} 秒内没有响应。服务器可能过载或无法访问；请重试，或检查网络连接和基础 URL。</translation>
    </message>
    <message>
        <source>{Subject} began its response but sent nothing for {seconds} s, so the app stopped waiting. Retry in a little while.</source>
        <translation>{Subject} 已开始响应，但 {seconds} 秒内没有发送任何内容，因此应用停止了等待。请稍后重试。</translation>
    </message>
    <message>
        <source>The reply from {noun} stalled: nothing arrived for {seconds} s, so the app stopped waiting. The partial reply was kept; Continue picks it up.</source>
        <translation>来自 {noun} 的回复停滞了：{seconds} 秒内没有收到任何内容，因此应用停止了等待。已保留部分回复；“继续”可以接着写下去。</translation>
    </message>
    <message>
        <source>stream chunk</source>
        <translation>流数据块</translation>
    </message>
    <message>
        <source>Gemini reported an error ({kind}: {detail}).</source>
        <translation>Gemini 报告了错误（{kind}: {detail}）。</translation>
    </message>
    <message>
        <source>Gemini reported an error mid-reply ({kind}: {detail}).</source>
        <translation>Gemini 在回复中途报告了错误（{kind}: {detail}）。</translation>
    </message>
    <message>
        <source>Gemini rejected the key ({status}: {detail}). Check the Gemini key in Settings or GEMINI_API_KEY.</source>
        <translation>Gemini 拒绝了密钥（{status}: {detail}）。请在设置或 GEMINI_API_KEY 中检查 Gemini 密钥。</translation>
    </message>
    <message>
        <source>Gemini has no model {model} here (404: {detail}). Check the model name and the base URL.</source>
        <translation>Gemini 在此没有模型 {model}（404: {detail}）。请检查模型名称和基础 URL。</translation>
    </message>
    <message>
        <source>Gemini is overloaded or failing ({status}: {detail}). Retry in a little while.</source>
        <translation>Gemini 过载或出现故障（{status}: {detail}）。请稍后重试。</translation>
    </message>
    <message>
        <source>its safety filters</source>
        <translation>其安全过滤器</translation>
    </message>
    <message>
        <source>its recitation check (the answer would repeat a source too closely)</source>
        <translation>其复述检查（回答与某个来源过于相近）</translation>
    </message>
    <message>
        <source>its prohibited-content policy</source>
        <translation>其违禁内容政策</translation>
    </message>
    <message>
        <source>a blocklist of terms</source>
        <translation>词语屏蔽列表</translation>
    </message>
    <message>
        <source>its check for sensitive personal information</source>
        <translation>其敏感个人信息检查</translation>
    </message>
    <message>
        <source>its image safety filters</source>
        <translation>其图片安全过滤器</translation>
    </message>
    <message>
        <source>its prohibited-content policy for images</source>
        <translation>其图片违禁内容政策</translation>
    </message>
    <message>
        <source>its recitation check for images</source>
        <translation>其图片复述检查</translation>
    </message>
    <message>
        <source>Model Armor</source>
        <translation>Model Armor</translation>
    </message>
    <message>
        <source>its jailbreak detection</source>
        <translation>其越狱检测</translation>
    </message>
    <message>
        <source>Gemini produced a malformed function call and stopped</source>
        <translation>Gemini 生成了格式错误的函数调用并停止了</translation>
    </message>
    <message>
        <source>Gemini called a function that was not offered and stopped</source>
        <translation>Gemini 调用了未提供的函数并停止了</translation>
    </message>
    <message>
        <source>Gemini made too many tool calls in one reply and stopped</source>
        <translation>Gemini 在一次回复中调用了过多工具并停止了</translation>
    </message>
    <message>
        <source>Gemini refused the history because a thought signature was missing</source>
        <translation>Gemini 因缺少思考签名而拒绝了对话历史</translation>
    </message>
    <message>
        <source>Gemini produced a malformed response</source>
        <translation>Gemini 生成了格式错误的响应</translation>
    </message>
    <message>
        <source>Gemini stopped because the request is in a language it does not support</source>
        <translation>Gemini 停止了，因为请求使用了它不支持的语言</translation>
    </message>
    <message>
        <source>its policies ({reason})</source>
        <translation>其政策（{reason}）</translation>
    </message>
    <message>
        <source>Gemini declined to answer: the request was blocked by {why}.</source>
        <translation>Gemini 拒绝回答：请求被{why}拦截。</translation>
    </message>
    <message>
        <source>Gemini declined to answer: the reply was stopped by {why}.</source>
        <translation>Gemini 拒绝回答：回复被{why}中止。</translation>
    </message>
    <message>
        <source>Gemini stopped the reply for a reason it did not explain ({reason})</source>
        <translation>Gemini 因未说明的原因停止了回复（{reason}）</translation>
    </message>
    <message>
        <source>{what} ({message}).</source>
        <translation>{what}（{message}）。</translation>
    </message>
    <message>
        <source>{what}.</source>
        <translation>{what}。</translation>
    </message>
    <message>
        <source>The partial reply was kept; try again or rephrase the request.</source>
        <translation>已保留部分回复；请重试，或换个说法提出请求。</translation>
    </message>
    <message>
        <source>The stream ended before Gemini said the reply was finished</source>
        <translation>在 Gemini 表示回复完成之前，数据流就结束了</translation>
    </message>
    <message>
        <source>{what}. The partial reply was kept.</source>
        <translation>{what}。已保留部分回复。</translation>
    </message>
    <message>
        <source>{label} did not answer within {seconds} s. Check the connection and the base URL.</source>
        <translation>{label} 在 {seconds} 秒内没有响应。请检查网络连接和基础 URL。</translation>
    </message>
    <message>
        <source>{label} gave an unexpected answer ({kind}: {error}).</source>
        <translation>{label} 返回了意外的响应（{kind}: {error}）。</translation>
    </message>
    <message>
        <source>Key works — {count} models available.</source>
        <translation>密钥有效——有 {count} 个可用模型。</translation>
    </message>
    <message>
        <source>line</source>
        <translation>行</translation>
    </message>
    <message>
        <source>Ollama has no model {model}; pull it with `ollama pull {model}` ({detail}).</source>
        <translation>Ollama 没有模型 {model}；请用 `ollama pull {model}` 拉取（{detail}）。</translation>
    </message>
    <message>
        <source>Ollama answered 404 at {url} ({detail}). Check the base URL.</source>
        <translation>Ollama 在 {url} 返回 404（{detail}）。请检查基础 URL。</translation>
    </message>
    <message>
        <source>Ollama at {url} refused the request ({status}: {detail}). Check the API key for this server.</source>
        <translation>{url} 上的 Ollama 拒绝了请求（{status}: {detail}）。请检查此服务器的 API 密钥。</translation>
    </message>
    <message>
        <source>Could not reach Ollama at {url}; is it running (`ollama serve`)? ({error})</source>
        <translation>无法连接 {url} 上的 Ollama；它在运行吗（`ollama serve`）？（{error}）</translation>
    </message>
    <message>
        <source>Ollama reported an error mid-reply: {detail}. The partial reply was kept.</source>
        <translation>Ollama 在回复中途报告了错误：{detail}。已保留部分回复。</translation>
    </message>
    <message>
        <source>Ollama reported an error: {detail}.</source>
        <translation>Ollama 报告了错误：{detail}。</translation>
    </message>
    <message>
        <source>{Subject} refused the request ({status}: {detail}).</source>
        <translation>{Subject} 拒绝了请求（{status}: {detail}）。</translation>
    </message>
    <message>
        <source>{Subject} rejected the key ({status}: {detail}). Check the key{where}.</source>
        <translation>{Subject} 拒绝了密钥（{status}: {detail}）。请{where}检查密钥。</translation>
    </message>
    <message>
        <source>{Subject} says the account has no credit left ({status}: {detail}). Top it up, then retry.</source>
        <translation>{Subject} 表示账户余额不足（{status}: {detail}）。请充值后重试。</translation>
    </message>
    <message>
        <source>{Subject} does not allow this key to do this ({status}: {detail}). Check the key&apos;s permissions{where}.</source>
        <translation>{Subject} 不允许此密钥执行该操作（{status}: {detail}）。请{where}检查密钥的权限。</translation>
    </message>
    <message>
        <source>Not found at {noun} ({status}: {detail}). Check the model name and the base URL.</source>
        <translation>在 {noun} 上未找到（{status}: {detail}）。请检查模型名称和基础 URL。</translation>
    </message>
    <message>
        <source>{Subject} timed out before answering ({status}: {detail}). Retry in a little while.</source>
        <translation>{Subject} 在应答前超时（{status}: {detail}）。请稍后重试。</translation>
    </message>
    <message>
        <source>The request is too large for {noun} ({status}: {detail}). Send less: fewer or smaller attachments.</source>
        <translation>请求对 {noun} 来说太大（{status}: {detail}）。请少发一些：减少附件或使用更小的附件。</translation>
    </message>
    <message>
        <source>Rate limited by {noun} ({status}: {detail}). Wait a moment and retry.</source>
        <translation>{noun} 限制了请求频率（{status}: {detail}）。请稍等片刻再重试。</translation>
    </message>
    <message>
        <source>{Subject} is overloaded ({status}: {detail}). Retry in a little while.</source>
        <translation>{Subject} 过载（{status}: {detail}）。请稍后重试。</translation>
    </message>
    <message>
        <source>{Subject} failed to answer ({status}: {detail}). Retry in a little while.</source>
        <translation>{Subject} 未能应答（{status}: {detail}）。请稍后重试。</translation>
    </message>
    <message>
        <source>Embedded {count} passages with {model} ({cached} already embedded).</source>
        <translation>已用 {model} 为 {count} 个段落生成嵌入（{cached} 个已有嵌入）。</translation>
    </message>
    <message>
        <source>Passages were not embedded: {error}. Searches use words only until they are.</source>
        <translation>段落未生成嵌入：{error}。在生成之前，搜索只按词语匹配。</translation>
    </message>
    <message>
        <source>Wait until every answer has ended (or stop them), then pick one.</source>
        <translation>请等待所有回答结束（或停止它们），然后再选择一个。</translation>
    </message>
    <message>
        <source>That model has no answer to continue with.</source>
        <translation>该模型没有可以继续的回答。</translation>
    </message>
    <message>
        <source>The file is not JSON ({error}). Choose a file made by Export → JSON.</source>
        <translation>该文件不是 JSON（{error}）。请选择通过“导出 → JSON”生成的文件。</translation>
    </message>
    <message>
        <source>The export is damaged: it holds the number {number}, which JSON does not allow.</source>
        <translation>导出文件已损坏：其中包含 JSON 不允许的数字 {number}。</translation>
    </message>
    <message>
        <source>The file is nested too deeply to be an export. Choose a file made by Export → JSON.</source>
        <translation>该文件嵌套过深，不可能是导出文件。请选择通过“导出 → JSON”生成的文件。</translation>
    </message>
    <message>
        <source>This is not a Desktop Copilot export. Choose a file made by Export → JSON.</source>
        <translation>这不是 Desktop Copilot 的导出文件。请选择通过“导出 → JSON”生成的文件。</translation>
    </message>
    <message>
        <source>The export is damaged: its version is not a whole number.</source>
        <translation>导出文件已损坏：其版本号不是整数。</translation>
    </message>
    <message>
        <source>The export was made by a newer Desktop Copilot; update the app to import it.</source>
        <translation>该导出文件由更新版本的 Desktop Copilot 生成；请更新应用后再导入。</translation>
    </message>
    <message>
        <source>The export is damaged: its &quot;conversations&quot; is not a list.</source>
        <translation>导出文件已损坏：其中的 &quot;conversations&quot; 不是列表。</translation>
    </message>
    <message>
        <source>The export is damaged: {count} problems, first: {first}.</source>
        <translation>导出文件已损坏：共 {count} 个问题，第一个：{first}。</translation>
    </message>
    <message>
        <source>The export is damaged: it holds an escaped character that is not Unicode text.</source>
        <translation>导出文件已损坏：其中包含一个不是 Unicode 文本的转义字符。</translation>
    </message>
    <message>
        <source>The export is damaged: the message {id} appears twice.</source>
        <translation>导出文件已损坏：消息 {id} 出现了两次。</translation>
    </message>
    <message>
        <source>The export cannot be imported: its message {id} is already stored in another conversation.</source>
        <translation>无法导入该导出文件：其中的消息 {id} 已保存在另一个对话中。</translation>
    </message>
    <message>
        <source>The conversation database cannot be written: {detail}</source>
        <translation>无法写入对话数据库：{detail}</translation>
    </message>
    <message>
        <source>The conversation database was damaged ({detail}). It was kept at {kept_at} and a new one was started.</source>
        <translation>对话数据库已损坏（{detail}）。旧文件已保留在 {kept_at}，并已新建一个数据库。</translation>
    </message>
    <message>
        <source>damaged ({problem}) and could not be moved aside: {error}</source>
        <translation>已损坏（{problem}），且无法移到一旁：{error}</translation>
    </message>
    <message>
        <source>Built-in</source>
        <translation>内置</translation>
    </message>
    <message>
        <source>Read-only</source>
        <translation>只读</translation>
    </message>
    <message>
        <source>Reaches the internet</source>
        <translation>访问互联网</translation>
    </message>
    <message>
        <source>Changes files</source>
        <translation>修改文件</translation>
    </message>
    <message>
        <source>Destructive</source>
        <translation>破坏性</translation>
    </message>
    <message>
        <source>Undeclared effects</source>
        <translation>未声明的影响</translation>
    </message>
    <message>
        <source>(no workspace folder)</source>
        <translation>（无工作区文件夹）</translation>
    </message>
    <message>
        <source>Runs in {folder}, stopped after {seconds} s:</source>
        <translation>在 {folder} 中运行，{seconds} 秒后停止：</translation>
    </message>
    <message>
        <source>{Subject} answered {status}: {detail}</source>
        <translation>{Subject} 返回 {status}: {detail}</translation>
    </message>
    <message>
        <source> in Settings</source>
        <translation>在设置中</translation>
    </message>
    <message>
        <source> in Settings or {hint}</source>
        <translation>在设置或 {hint} 中</translation>
    </message>
    <message>
        <source> The partial reply was kept.</source>
        <translation>已保留部分回复。</translation>
    </message>
    <message>
        <source>{noun} answered {status}: {detail}</source>
        <translation>{noun} 返回 {status}: {detail}</translation>
    </message>
    <message>
        <source>{noun} said: {detail}</source>
        <translation>{noun} 表示：{detail}</translation>
    </message>
    <message>
        <source>Could not reach {noun} at {url}: {why}</source>
        <translation>无法连接 {url} 上的 {noun}：{why}</translation>
    </message>
    <message>
        <source>The connection closed before the reply finished ({error}).</source>
        <translation>回复完成前连接已关闭（{error}）。</translation>
    </message>
    <message>
        <source>The connection to {noun} broke before the reply began ({error}: {details}).</source>
        <translation>回复开始前与 {noun} 的连接已中断（{error}: {details}）。</translation>
    </message>
    <message>
        <source>The stream from {noun} ended before the reply finished.</source>
        <translation>来自 {noun} 的数据流在回复完成前结束。</translation>
    </message>
    <message>
        <source>{Subject} ended its response before the reply began. Retry.</source>
        <translation>{Subject} 在回复开始前结束了响应。请重试。</translation>
    </message>
    <message>
        <source>{Subject} sent a {frame} that is not a JSON object ({shown}); the reply was cut there.</source>
        <translation>{Subject} 发送的{frame}不是 JSON 对象（{shown}）；回复在此中断。</translation>
    </message>
    <message>
        <source>{Subject} answered {url} with something that is not JSON (“{excerpt}”). Check the base URL in Settings ▸ Providers.</source>
        <translation>{Subject} 对 {url} 的应答不是 JSON（“{excerpt}”）。请在 设置 ▸ 服务商 中检查基础 URL。</translation>
    </message>
    <message>
        <source>The model wrote a tool call as text that could not be read ({tag} with {reason}), so it did not run.</source>
        <translation>模型以文本形式写出的工具调用无法读取（{tag}：{reason}），因此没有运行。</translation>
    </message>
    <message>
        <source>The model&apos;s reply ended inside a tool call written as text ({tag} was never closed), so it did not run.</source>
        <translation>模型的回复在以文本形式写出的工具调用中途结束（{tag} 未闭合），因此没有运行。</translation>
    </message>
    <message>
        <source>No key is stored for {name!r}. Run `desktop-copilot keys set {name}` or add it in Settings.</source>
        <translation>未存储 {name!r} 的密钥。请运行 `desktop-copilot keys set {name}` 或在设置中添加。</translation>
    </message>
    <message>
        <source>{provider} API key</source>
        <translation>{provider} API 密钥</translation>
    </message>
    <message>
        <source>No {label} is configured. Get one at {url}, then run `desktop-copilot keys set {name}` or set the {env_var} environment variable.</source>
        <translation>尚未配置{label}。请在 {url} 获取，然后运行 `desktop-copilot keys set {name}`，或设置环境变量 {env_var}。</translation>
    </message>
    <message>
        <source>Pending</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>Needs approval</source>
        <translation>需要批准</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
</context>
<context>
    <name>DailyChart</name>
    <message>
        <source>Usage per day</source>
        <translation>每日用量</translation>
    </message>
    <message>
        <source>Nothing used in these days</source>
        <translation>这些天没有用量</translation>
    </message>
    <message>
        <source>Some replies have no known price.</source>
        <translation>部分回复的价格未知。</translation>
    </message>
</context>
<context>
    <name>DiskRetry</name>
    <message>
        <source>Saved to {path}: everything you wrote is on disk now.</source>
        <translation>已保存到 {path}：你写下的一切现在都在磁盘上了。</translation>
    </message>
</context>
<context>
    <name>EditBar</name>
    <message>
        <source>Editing a message — Esc to cancel</source>
        <translation>正在编辑消息 — 按 Esc 取消</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>EmbeddingGroup</name>
    <message>
        <source>None — search by words only</source>
        <translation>无 — 仅按词语搜索</translation>
    </message>
    <message>
        <source>Embedding model</source>
        <translation>嵌入模型</translation>
    </message>
    <message>
        <source>Embedding model name</source>
        <translation>嵌入模型名称</translation>
    </message>
    <message>
        <source>Embedding base URL</source>
        <translation>嵌入基础 URL</translation>
    </message>
    <message>
        <source>Embed with</source>
        <translation>嵌入方式</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Base URL</source>
        <translation>基础 URL</translation>
    </message>
    <message>
        <source>Embeddings</source>
        <translation>嵌入</translation>
    </message>
    <message>
        <source>Passages are found by their words (BM25). An embedding model also finds passages that say the same thing in other words.</source>
        <translation>按词语查找段落（BM25）。嵌入模型还能找到用其他措辞表达相同意思的段落。</translation>
    </message>
    <message>
        <source>Uses the OpenAI key of Settings ▸ Providers. Passages are sent to this endpoint to be embedded.</source>
        <translation>使用设置 ▸ 服务商中的 OpenAI 密钥。段落会发送到此端点进行嵌入。</translation>
    </message>
    <message>
        <source>Uses the Gemini key of Settings ▸ Providers. Passages are sent to Google to be embedded.</source>
        <translation>使用设置 ▸ 服务商中的 Gemini 密钥。段落会发送给 Google 进行嵌入。</translation>
    </message>
    <message>
        <source>Runs on this computer with Ollama; needs no key. Pull the model first (ollama pull).</source>
        <translation>通过 Ollama 在本机运行；无需密钥。请先拉取模型（ollama pull）。</translation>
    </message>
    <message>
        <source>name the embedding model, or choose None</source>
        <translation>请填写嵌入模型名称，或选择“无”</translation>
    </message>
    <message>
        <source>the embedding base URL must start with http:// or https://</source>
        <translation>嵌入基础 URL 必须以 http:// 或 https:// 开头</translation>
    </message>
</context>
<context>
    <name>EndpointForm</name>
    <message>
        <source>Header line {number} is not “Name: value”.</source>
        <translation>第 {number} 行标头不是“名称: 值”格式。</translation>
    </message>
    <message>
        <source>“{name}” would carry a secret, and headers are saved in settings.json as plain text. Put the key in the API key field instead: it is kept in the keyring and sent as “Authorization: Bearer …”.</source>
        <translation>“{name}”会携带机密信息，而标头以明文保存在 settings.json 中。请改为把密钥填入 API 密钥栏：它保存在密钥环中，并以“Authorization: Bearer …”发送。</translation>
    </message>
    <message>
        <source>Add endpoint</source>
        <translation>添加端点</translation>
    </message>
    <message>
        <source>As the server names it (Test lists them)</source>
        <translation>与服务器上的名称一致（“测试”会列出）</translation>
    </message>
    <message>
        <source>Optional: kept in the keyring</source>
        <translation>可选：保存在密钥环中</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Base URL</source>
        <translation>基础 URL</translation>
    </message>
    <message>
        <source>Default model</source>
        <translation>默认模型</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>Extra headers</source>
        <translation>额外标头</translation>
    </message>
    <message>
        <source>One “Name: value” a line. No secrets here: use the key field.</source>
        <translation>每行一个“名称: 值”。请勿在此填写机密：请使用密钥栏。</translation>
    </message>
    <message>
        <source>Id: {id} (the key is stored under it)</source>
        <translation>ID：{id}（密钥以此名称保存）</translation>
    </message>
    <message>
        <source>Give the endpoint a name.</source>
        <translation>请为端点命名。</translation>
    </message>
</context>
<context>
    <name>ErrorBanner</name>
    <message>
        <source>The disk is full, so conversations cannot be saved. Your replies stay in this window and are saved as soon as there is room: free some disk space.</source>
        <translation>磁盘已满，对话无法保存。回复会保留在此窗口中，有空间后立即保存：请释放一些磁盘空间。</translation>
    </message>
    <message>
        <source>The conversation database is read-only, so conversations cannot be saved. Your replies stay in this window and are saved once it can be written: check the permissions of {folder}.</source>
        <translation>对话数据库是只读的，对话无法保存。回复会保留在此窗口中，可以写入后即会保存：请检查 {folder} 的权限。</translation>
    </message>
    <message>
        <source>Another program is holding the conversation database, so conversations cannot be saved yet. Your replies stay in this window and saving is tried again.</source>
        <translation>另一个程序正占用对话数据库，对话暂时无法保存。回复会保留在此窗口中，并会再次尝试保存。</translation>
    </message>
    <message>
        <source>The conversation database cannot be written (a disk error). Your replies stay in this window and saving is tried again: check the disk that holds {folder}.</source>
        <translation>无法写入对话数据库（磁盘错误）。回复会保留在此窗口中，并会再次尝试保存：请检查 {folder} 所在的磁盘。</translation>
    </message>
    <message>
        <source>What you write now is kept in memory; File ▸ Export saves it.</source>
        <translation>现在写下的内容保存在内存中；可用 文件 ▸ 导出 保存。</translation>
    </message>
    <message>
        <source>The conversations saved there are shown and can be continued.</source>
        <translation>那里保存的对话已显示，可以继续。</translation>
    </message>
    <message>
        <source>The conversations saved there cannot be read now; the file is left as it is.</source>
        <translation>那里保存的对话现在无法读取；该文件保持原样。</translation>
    </message>
    <message>
        <source>Your conversations cannot be saved: the data folder {folder} is read-only.</source>
        <translation>无法保存对话：数据文件夹 {folder} 是只读的。</translation>
    </message>
    <message>
        <source>Make the folder writable and they are written there at once.</source>
        <translation>让该文件夹可写后，对话会立即写入其中。</translation>
    </message>
    <message>
        <source>Your conversations cannot be saved: the disk that holds {folder} is full.</source>
        <translation>无法保存对话：{folder} 所在的磁盘已满。</translation>
    </message>
    <message>
        <source>Free some disk space and they are written there at once.</source>
        <translation>释放一些磁盘空间后，对话会立即写入其中。</translation>
    </message>
    <message>
        <source>Your conversations cannot be saved: {folder} is a file where the data folder should be.</source>
        <translation>无法保存对话：数据文件夹的位置 {folder} 是一个文件。</translation>
    </message>
    <message>
        <source>Move that file away and they are written to a new folder there at once.</source>
        <translation>移走该文件后，对话会立即写入在那里新建的文件夹。</translation>
    </message>
    <message>
        <source>Your conversations cannot be saved: the conversation database in {folder} is damaged and could not be moved aside.</source>
        <translation>无法保存对话：{folder} 中的对话数据库已损坏，且无法移到一旁。</translation>
    </message>
    <message>
        <source>Make the folder writable (or move the damaged file away) and a new database is started there at once.</source>
        <translation>让该文件夹可写（或移走损坏的文件）后，会立即在那里新建数据库。</translation>
    </message>
    <message>
        <source>Your conversations cannot be saved: the conversation database in {folder} cannot be opened.</source>
        <translation>无法保存对话：无法打开 {folder} 中的对话数据库。</translation>
    </message>
    <message>
        <source>Check the disk that holds it; they are written there as soon as it opens.</source>
        <translation>请检查它所在的磁盘；一旦能打开，对话会立即写入。</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>FileUndoActions</name>
    <message>
        <source>Undo file changes…</source>
        <translation>撤销文件更改…</translation>
    </message>
    <message>
        <source>Put the files this reply changed back as they were before it</source>
        <translation>将此回复更改的文件恢复为回复之前的样子</translation>
    </message>
    <message>
        <source>Wait until the reply is written to undo its file changes.</source>
        <translation>请等回复写完后再撤销它的文件更改。</translation>
    </message>
    <message>
        <source>This reply has no file changes left to undo.</source>
        <translation>此回复已没有可撤销的文件更改。</translation>
    </message>
    <message>
        <source>Could not undo every file change: {error}. The files put back before it stay so; undo again to go on.</source>
        <translation>未能撤销全部文件更改：{error}。此前已恢复的文件保持恢复；再次撤销可继续。</translation>
    </message>
    <message>
        <source>Undid this reply&apos;s change to 1 file.</source>
        <translation>已撤销此回复对 1 个文件的更改。</translation>
    </message>
    <message numerus="yes">
        <source>Undid this reply&apos;s changes to %n files.</source>
        <translation>
            <numerusform>已撤销此回复对 %n 个文件的更改。</numerusform>
        </translation>
    </message>
    <message>
        <source>Left as they are (too large to have been kept): {names}</source>
        <translation>保持原样（文件太大，未保留原内容）：{names}</translation>
    </message>
    <message>
        <source>Undo file changes</source>
        <translation>撤销文件更改</translation>
    </message>
    <message>
        <source>Put back the files this reply changed, as they were before it?</source>
        <translation>将此回复更改的文件恢复为回复之前的样子？</translation>
    </message>
    <message>
        <source>Undo changes</source>
        <translation>撤销更改</translation>
    </message>
    <message>
        <source>removed (the reply created it)</source>
        <translation>删除（由此回复创建）</translation>
    </message>
    <message>
        <source>left as it is (too large to have been kept)</source>
        <translation>保持原样（文件太大，未保留原内容）</translation>
    </message>
    <message>
        <source>put back as it was</source>
        <translation>恢复原样</translation>
    </message>
</context>
<context>
    <name>GenerationAction</name>
    <message>
        <source>Generation…</source>
        <translation>生成参数…</translation>
    </message>
    <message>
        <source>Temperature and top-p of this conversation</source>
        <translation>此对话的温度和 Top-p</translation>
    </message>
</context>
<context>
    <name>GenerationDialog</name>
    <message>
        <source>Generation options</source>
        <translation>生成参数</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>“{0}”: how the model picks its words. A change applies from the next message.</source>
        <translation>“{0}”：模型如何选词。更改从下一条消息起生效。</translation>
    </message>
    <message>
        <source>&amp;Temperature</source>
        <translation>温度(&amp;T)</translation>
    </message>
    <message>
        <source>Top-&amp;p</source>
        <translation>Top-p(&amp;P)</translation>
    </message>
    <message>
        <source>Lower temperature gives steadier answers, higher more varied ones; top-p limits the words considered to the most likely. Change one of the two rather than both. Models that refuse them (with extended thinking, or reasoning models) are sent neither.</source>
        <translation>温度越低，回答越稳定；越高，回答越多样。Top-p 只在可能性最高的词中选词。两者改一个即可，不要都改。不接受这些参数的模型（开启扩展思考时，或推理模型）两者都不会收到。</translation>
    </message>
    <message>
        <source>Use the assistant&apos;s</source>
        <translation>使用助手的参数</translation>
    </message>
    <message>
        <source>Put back the options of the assistant this conversation started from</source>
        <translation>恢复此对话所基于的助手的参数</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Not saved: {0}</source>
        <translation>未保存：{0}</translation>
    </message>
</context>
<context>
    <name>GenerationFields</name>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>model default</source>
        <translation>模型默认</translation>
    </message>
    <message>
        <source>Temperature: {0} · Top-p: {1}</source>
        <translation>温度：{0} · Top-p：{1}</translation>
    </message>
</context>
<context>
    <name>GenerationOptionRow</name>
    <message>
        <source>Model default</source>
        <translation>模型默认</translation>
    </message>
    <message>
        <source>Send nothing: the model uses its own default</source>
        <translation>不发送：模型使用自己的默认值</translation>
    </message>
</context>
<context>
    <name>HistoryActions</name>
    <message>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <source>Desktop Copilot export (*.json)</source>
        <translation>Desktop Copilot 导出文件 (*.json)</translation>
    </message>
    <message>
        <source>New conversation</source>
        <translation>新建对话</translation>
    </message>
    <message>
        <source>Export conversation as Markdown…</source>
        <translation>将对话导出为 Markdown…</translation>
    </message>
    <message>
        <source>Export conversation as JSON…</source>
        <translation>将对话导出为 JSON…</translation>
    </message>
    <message>
        <source>Export all conversations…</source>
        <translation>导出所有对话…</translation>
    </message>
    <message>
        <source>Import conversations…</source>
        <translation>导入对话…</translation>
    </message>
    <message>
        <source>This conversation is empty: there is nothing to export yet.</source>
        <translation>此对话为空：暂无可导出的内容。</translation>
    </message>
    <message>
        <source>Export conversation as Markdown</source>
        <translation>将对话导出为 Markdown</translation>
    </message>
    <message>
        <source>Export conversation as JSON</source>
        <translation>将对话导出为 JSON</translation>
    </message>
    <message>
        <source>Export all conversations</source>
        <translation>导出所有对话</translation>
    </message>
    <message>
        <source>Could not save {path}: {problem}. Choose another folder.</source>
        <translation>无法保存 {path}：{problem}。请选择其他文件夹。</translation>
    </message>
    <message>
        <source>Exported to {path}</source>
        <translation>已导出到 {path}</translation>
    </message>
    <message>
        <source>Import conversations</source>
        <translation>导入对话</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <source>it is not a text file. Choose a file made by Export → JSON.</source>
        <translation>它不是文本文件。请选择通过“导出 → JSON”生成的文件。</translation>
    </message>
    <message>
        <source>Imported 1 conversation from {file}.</source>
        <translation>已从 {file} 导入 1 个对话。</translation>
    </message>
    <message numerus="yes">
        <source>Imported %n conversations from {file}.</source>
        <translation>
            <numerusform>已从 {file} 导入 %n 个对话。</numerusform>
        </translation>
    </message>
    <message>
        <source>1 was already here and kept as it was.</source>
        <translation>1 个已存在，保持不变。</translation>
    </message>
    <message numerus="yes">
        <source>%n were already here and kept as they were.</source>
        <translation>
            <numerusform>%n 个已存在，保持不变。</numerusform>
        </translation>
    </message>
    <message>
        <source>Could not import {file}: {reason}</source>
        <translation>无法导入 {file}：{reason}</translation>
    </message>
</context>
<context>
    <name>HistoryController</name>
    <message>
        <source>That conversation is no longer in the history.</source>
        <translation>该对话已不在历史记录中。</translation>
    </message>
    <message>
        <source>Stop the reply in progress before deleting this conversation.</source>
        <translation>请先停止正在生成的回复，再删除此对话。</translation>
    </message>
</context>
<context>
    <name>KeyField</name>
    <message>
        <source>Not set</source>
        <translation>未设置</translation>
    </message>
    <message>
        <source>Stored in {place} · {hint}</source>
        <translation>保存在{place} · {hint}</translation>
    </message>
    <message>
        <source>the keyring</source>
        <translation>密钥环</translation>
    </message>
    <message>
        <source>This session only · {hint}</source>
        <translation>仅限本次会话 · {hint}</translation>
    </message>
    <message>
        <source>From environment ({variable}) · {hint}, read-only</source>
        <translation>来自环境变量（{variable}）· {hint}，只读</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>正在检查…</translation>
    </message>
    <message>
        <source>Paste the key</source>
        <translation>粘贴密钥</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Show the text typed in this field (a stored key is never shown)</source>
        <translation>显示此栏中输入的文字（已保存的密钥永不显示）</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Test</source>
        <translation>测试</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Paste to replace {hint}</source>
        <translation>粘贴以替换 {hint}</translation>
    </message>
    <message>
        <source>Paste a new key to replace {hint}</source>
        <translation>粘贴新密钥以替换 {hint}</translation>
    </message>
    <message>
        <source>Unset {variable} to remove a key that comes from the environment</source>
        <translation>要移除来自环境的密钥，请取消设置 {variable}</translation>
    </message>
    <message>
        <source>Remove the stored key</source>
        <translation>移除已保存的密钥</translation>
    </message>
    <message>
        <source>Get a key at {host} ↗</source>
        <translation>在 {host} 获取密钥 ↗</translation>
    </message>
    <message>
        <source>A saved key is used before {variable}.</source>
        <translation>已保存的密钥优先于 {variable}。</translation>
    </message>
    <message>
        <source>Hide</source>
        <translation>隐藏</translation>
    </message>
    <message>
        <source>Test the key typed here</source>
        <translation>测试此处输入的密钥</translation>
    </message>
    <message>
        <source>Test the key in use</source>
        <translation>测试正在使用的密钥</translation>
    </message>
    <message>
        <source>the environment</source>
        <translation>环境变量</translation>
    </message>
    <message>
        <source>this session</source>
        <translation>本次会话</translation>
    </message>
    <message>
        <source>Also set in {places}; not used while this one exists.</source>
        <translation>{places}中也有设置；此项存在时不会使用。</translation>
    </message>
</context>
<context>
    <name>KeysPage</name>
    <message>
        <source>Keys are kept in {place}, never in a file.</source>
        <translation>密钥保存在{place}中，绝不写入文件。</translation>
    </message>
    <message>
        <source>&lt;b&gt;No usable keyring&lt;/b&gt;{where}: {problem}.&lt;br&gt;Keys you save now are kept &lt;b&gt;for this session only&lt;/b&gt; and forgotten when Desktop Copilot quits; nothing is written to a file. To keep a key, unlock or install a keyring, or set {variables} in the environment.</source>
        <translation>&lt;b&gt;没有可用的密钥环&lt;/b&gt;{where}：{problem}。&lt;br&gt;现在保存的密钥&lt;b&gt;仅在本次会话中&lt;/b&gt;保留，Desktop Copilot 退出后即被遗忘；不会写入任何文件。要长期保存密钥，请解锁或安装密钥环，或在环境中设置 {variables}。</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>正在保存…</translation>
    </message>
    <message>
        <source>Kept for this session only (no usable keyring); forgotten when the app quits.</source>
        <translation>仅在本次会话中保留（没有可用的密钥环）；应用退出后即被遗忘。</translation>
    </message>
    <message>
        <source>Removed the {key}.</source>
        <translation>已移除{key}。</translation>
    </message>
    <message>
        <source>There was no stored {key}.</source>
        <translation>没有已保存的{key}。</translation>
    </message>
    <message>
        <source>{variable} is still set in the environment and is used.</source>
        <translation>环境中仍设置了 {variable}，将使用它。</translation>
    </message>
    <message>
        <source>Checking the keyring…</source>
        <translation>正在检查密钥环…</translation>
    </message>
    <message>
        <source>Testing the typed key…</source>
        <translation>正在测试输入的密钥…</translation>
    </message>
    <message>
        <source>Testing the key in use…</source>
        <translation>正在测试正在使用的密钥…</translation>
    </message>
</context>
<context>
    <name>KnowledgeIndexing</name>
    <message>
        <source>“{name}” could not be removed: {problem}</source>
        <translation>无法移除“{name}”：{problem}</translation>
    </message>
</context>
<context>
    <name>KnowledgePage</name>
    <message>
        <source>OpenAI-compatible</source>
        <translation>OpenAI 兼容</translation>
    </message>
    <message>
        <source>Gemini</source>
        <translation>Gemini</translation>
    </message>
    <message>
        <source>Ollama</source>
        <translation>Ollama</translation>
    </message>
    <message>
        <source>On</source>
        <translation>开启</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Passages</source>
        <translation>段落</translation>
    </message>
    <message>
        <source>Left out</source>
        <translation>未收录</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Removing…</source>
        <translation>正在移除…</translation>
    </message>
    <message>
        <source>Indexing {percent}%</source>
        <translation>正在索引 {percent}%</translation>
    </message>
    <message>
        <source>Waiting to index</source>
        <translation>等待索引</translation>
    </message>
    <message>
        <source>Embedding…</source>
        <translation>正在嵌入…</translation>
    </message>
    <message>
        <source>Not indexed yet</source>
        <translation>尚未索引</translation>
    </message>
    <message>
        <source>Indexed {when}</source>
        <translation>已索引（{when}）</translation>
    </message>
    <message>
        <source>Add folder…</source>
        <translation>添加文件夹…</translation>
    </message>
    <message>
        <source>Add file…</source>
        <translation>添加文件…</translation>
    </message>
    <message>
        <source>Reindex</source>
        <translation>重新索引</translation>
    </message>
    <message>
        <source>Read every file of the selected source again</source>
        <translation>重新读取所选来源中的每个文件</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Adding, removing, switching and reindexing take effect at once; the sources live in the knowledge index, not in the settings.</source>
        <translation>添加、移除、开关和重新索引会立即生效；来源保存在知识索引中，而不在设置中。</translation>
    </message>
    <message>
        <source>Sources</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>The knowledge index cannot be read: {problem}</source>
        <translation>无法读取知识索引：{problem}</translation>
    </message>
    <message>
        <source>Search {name}</source>
        <translation>搜索 {name}</translation>
    </message>
    <message>
        <source>Searched by search_knowledge while on</source>
        <translation>开启时由 search_knowledge 搜索</translation>
    </message>
    <message>
        <source>Select a source to see the files it left out.</source>
        <translation>选择一个来源以查看其未收录的文件。</translation>
    </message>
    <message>
        <source>Nothing added yet: add a folder or a file to let the assistant search it.</source>
        <translation>尚未添加任何内容：添加文件夹或文件，助手即可搜索其中内容。</translation>
    </message>
    <message>
        <source>No file of “{name}” was left out.</source>
        <translation>“{name}”的文件均已收录。</translation>
    </message>
    <message>
        <source>Files left out of “{name}”</source>
        <translation>“{name}”中未收录的文件</translation>
    </message>
    <message>
        <source>Add a folder to knowledge</source>
        <translation>添加文件夹作为知识来源</translation>
    </message>
    <message>
        <source>Add a file to knowledge</source>
        <translation>添加文件作为知识来源</translation>
    </message>
    <message>
        <source>Remove the source</source>
        <translation>移除来源</translation>
    </message>
    <message>
        <source>Remove “{name}” from knowledge? Its passages leave the index; the files on disk are not touched.</source>
        <translation>移除知识来源“{name}”？其段落将从索引中删除；磁盘上的文件不受影响。</translation>
    </message>
</context>
<context>
    <name>KnowledgeStatus</name>
    <message>
        <source>Knowledge sources: open Settings ▸ Knowledge</source>
        <translation>知识来源：打开设置 ▸ 知识</translation>
    </message>
    <message>
        <source>“{name}”: {message}</source>
        <translation>“{name}”：{message}</translation>
    </message>
    <message>
        <source>Embedding the passages of “{name}”…</source>
        <translation>正在嵌入“{name}”的段落…</translation>
    </message>
    <message>
        <source>Indexing “{name}” · {done} / {total} files</source>
        <translation>正在索引“{name}” · {done} / {total} 个文件</translation>
    </message>
    <message>
        <source>“{name}”: 1 file left out</source>
        <translation>“{name}”：1 个文件未收录</translation>
    </message>
    <message numerus="yes">
        <source>“{name}”: %n files left out</source>
        <translation>
            <numerusform>“{name}”：%n 个文件未收录</numerusform>
        </translation>
    </message>
    <message>
        <source>“{name}” could not be indexed: {problem}</source>
        <translation>无法索引“{name}”：{problem}</translation>
    </message>
</context>
<context>
    <name>LinkOpener</name>
    <message>
        <source>&lt;b&gt;Opens:&lt;/b&gt; {host}</source>
        <translation>&lt;b&gt;将打开：&lt;/b&gt;{host}</translation>
    </message>
    <message>
        <source>Not a web or mail link: it will not open.</source>
        <translation>不是网页或邮件链接：不会打开。</translation>
    </message>
    <message>
        <source>Open this link?</source>
        <translation>打开此链接？</translation>
    </message>
    <message>
        <source>It really opens:</source>
        <translation>实际打开的是：</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Regenerate the last reply</source>
        <translation>重新生成最后一条回复</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>This conversation&apos;s system prompt and generation options</source>
        <translation>此对话的系统提示词和生成参数</translation>
    </message>
    <message>
        <source>System prompt…</source>
        <translation>系统提示词…</translation>
    </message>
    <message>
        <source>See and edit this conversation&apos;s system prompt</source>
        <translation>查看和编辑此对话的系统提示词</translation>
    </message>
    <message>
        <source>The conversation database can be written again: everything is saved.</source>
        <translation>对话数据库已可再次写入：所有内容均已保存。</translation>
    </message>
    <message>
        <source>1 tool call waiting for your approval in the conversation</source>
        <translation>对话中有 1 个工具调用等待你批准</translation>
    </message>
    <message numerus="yes">
        <source>%n tool calls waiting for your approval in the conversation</source>
        <translation>
            <numerusform>对话中有 %n 个工具调用等待你批准</numerusform>
        </translation>
    </message>
    <message>
        <source>Text size {percent} %</source>
        <translation>文字大小 {percent}%</translation>
    </message>
    <message>
        <source>Could not open the log folder. It is at {folder}</source>
        <translation>无法打开日志文件夹。它位于 {folder}</translation>
    </message>
    <message>
        <source>Message {name}…</source>
        <translation>给 {name} 发消息…</translation>
    </message>
    <message>
        <source>{name} is replying…</source>
        <translation>{name} 正在回复…</translation>
    </message>
    <message>
        <source>The reply ended early ({outcome}).</source>
        <translation>回复提前结束（{outcome}）。</translation>
    </message>
    <message>
        <source>Stopped. The partial reply was kept.</source>
        <translation>已停止。已保留部分回复。</translation>
    </message>
    <message>
        <source>Replies are still being written</source>
        <translation>仍有回复在生成</translation>
    </message>
    <message numerus="yes">
        <source>%n conversation(s) are still getting a reply. Stop them and quit? What has arrived is kept and marked stopped.</source>
        <translation>
            <numerusform>%n 个对话仍在接收回复。停止并退出吗？已收到的内容会保留并标记为已停止。</numerusform>
        </translation>
    </message>
    <message>
        <source>Stop and quit</source>
        <translation>停止并退出</translation>
    </message>
    <message>
        <source>Keep the window open</source>
        <translation>保持窗口打开</translation>
    </message>
</context>
<context>
    <name>Markdown</name>
    <message>
        <source>Sources</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Passages found</source>
        <translation>找到的段落</translation>
    </message>
</context>
<context>
    <name>McpPage</name>
    <message>
        <source>Each server&apos;s tools are offered to Claude while it runs. Read-only tools run without asking; the others ask first. Values of environment variables and headers are kept in the system keyring.</source>
        <translation>服务器运行时，其工具会提供给 Claude。只读工具无需询问即可运行；其他工具会先询问。环境变量和标头的值保存在系统密钥环中。</translation>
    </message>
    <message>
        <source>No MCP servers yet. Add one, or import the servers of Claude Desktop (claude_desktop_config.json).</source>
        <translation>还没有 MCP 服务器。请添加一个，或导入 Claude Desktop 的服务器（claude_desktop_config.json）。</translation>
    </message>
    <message>
        <source>added {names}</source>
        <translation>已添加 {names}</translation>
    </message>
    <message>
        <source>replaced {names}</source>
        <translation>已替换 {names}</translation>
    </message>
    <message>
        <source>skipped {names} (a server of that name exists; remove it first to import it)</source>
        <translation>已跳过 {names}（同名服务器已存在；请先移除再导入）</translation>
    </message>
    <message>
        <source>From {file}: {outcome}.</source>
        <translation>来自 {file}：{outcome}。</translation>
    </message>
    <message>
        <source>no servers found</source>
        <translation>未找到服务器</translation>
    </message>
    <message>
        <source>{name} could not be imported: {reason}</source>
        <translation>无法导入 {name}：{reason}</translation>
    </message>
    <message>
        <source>Add server…</source>
        <translation>添加服务器…</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Takes the servers of a claude_desktop_config.json (or another app&apos;s mcp.json)</source>
        <translation>导入 claude_desktop_config.json（或其他应用的 mcp.json）中的服务器</translation>
    </message>
    <message>
        <source>Open mcp.json</source>
        <translation>打开 mcp.json</translation>
    </message>
    <message>
        <source>MCP servers are not available in this session.</source>
        <translation>本次会话中 MCP 服务器不可用。</translation>
    </message>
    <message>
        <source>{name} is not running in this session yet; try again in a moment.</source>
        <translation>{name} 在本次会话中尚未运行；请稍后再试。</translation>
    </message>
    <message>
        <source>Could not sign in: {problem}</source>
        <translation>无法登录：{problem}</translation>
    </message>
    <message>
        <source>Remove MCP server</source>
        <translation>移除 MCP 服务器</translation>
    </message>
    <message>
        <source>Remove the MCP server “{name}”? Its tools go away, and its secrets are deleted from the keyring.</source>
        <translation>移除 MCP 服务器“{name}”？其工具将不再可用，其机密信息也会从密钥环中删除。</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Not removed: {problem}</source>
        <translation>未移除：{problem}</translation>
    </message>
    <message>
        <source>Removed {name}, but {problem}</source>
        <translation>已移除 {name}，但{problem}</translation>
    </message>
    <message>
        <source>Removed {name}.</source>
        <translation>已移除 {name}。</translation>
    </message>
    <message>
        <source>Not added: {problem}</source>
        <translation>未添加：{problem}</translation>
    </message>
    <message>
        <source>Added {name}.</source>
        <translation>已添加 {name}。</translation>
    </message>
    <message>
        <source>Import MCP servers</source>
        <translation>导入 MCP 服务器</translation>
    </message>
    <message>
        <source>MCP configuration (*.json);;All files (*)</source>
        <translation>MCP 配置 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Nothing imported: {problem}</source>
        <translation>未导入任何内容：{problem}</translation>
    </message>
    <message>
        <source>{path} does not exist yet: add a server first.</source>
        <translation>{path} 尚不存在：请先添加一个服务器。</translation>
    </message>
</context>
<context>
    <name>ModelPicker</name>
    <message>
        <source>Could not list the models: {problem}</source>
        <translation>无法列出模型：{problem}</translation>
    </message>
    <message>
        <source>Stop the reply to change the model</source>
        <translation>停止回复后才能更换模型</translation>
    </message>
    <message>
        <source>The model answering in this conversation: click to choose another</source>
        <translation>此对话中回答的模型：点击选择其他模型</translation>
    </message>
</context>
<context>
    <name>ModelPopup</name>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Providers</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>Add a key in Settings ▸ {page}</source>
        <translation>在设置 ▸ {page} 中添加密钥</translation>
    </message>
    <message>
        <source>No key</source>
        <translation>无密钥</translation>
    </message>
    <message>
        <source>Refreshing…</source>
        <translation>正在刷新…</translation>
    </message>
    <message>
        <source>No models listed yet: press Refresh.</source>
        <translation>尚未列出模型：请点击“刷新”。</translation>
    </message>
    <message>
        <source>Nothing matches “{query}”.</source>
        <translation>没有与“{query}”匹配的结果。</translation>
    </message>
    <message>
        <source>Every provider is switched off in Settings ▸ Providers.</source>
        <translation>所有服务商都已在设置 ▸ 服务商中关闭。</translation>
    </message>
    <message>
        <source>Search providers and models</source>
        <translation>搜索服务商和模型</translation>
    </message>
    <message>
        <source>↑ ↓ move · Enter chooses · Esc closes · Ctrl+R refreshes</source>
        <translation>↑ ↓ 移动 · Enter 选择 · Esc 关闭 · Ctrl+R 刷新</translation>
    </message>
</context>
<context>
    <name>ModelProfiles</name>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>输出上限</translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation>思考</translation>
    </message>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Images</source>
        <translation>图片</translation>
    </message>
    <message>
        <source>u</source>
        <translation>自</translation>
    </message>
    <message>
        <source>p</source>
        <translation>商</translation>
    </message>
    <message>
        <source>t</source>
        <translation>表</translation>
    </message>
    <message>
        <source>?</source>
        <translation>?</translation>
    </message>
    <message>
        <source>set by you</source>
        <translation>由你设置</translation>
    </message>
    <message>
        <source>reported by the provider</source>
        <translation>由服务商报告</translation>
    </message>
    <message>
        <source>from the shipped table</source>
        <translation>来自内置表</translation>
    </message>
    <message>
        <source>a guess</source>
        <translation>推测值</translation>
    </message>
    <message>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Anthropic blocks</source>
        <translation>Anthropic 块</translation>
    </message>
    <message>
        <source>Reasoning field</source>
        <translation>推理字段</translation>
    </message>
    <message>
        <source>&lt;think&gt; tags</source>
        <translation>&lt;think&gt; 标签</translation>
    </message>
    <message>
        <source>Gemini thoughts</source>
        <translation>Gemini 思考</translation>
    </message>
    <message>
        <source>Native</source>
        <translation>原生</translation>
    </message>
    <message>
        <source>As text</source>
        <translation>文本形式</translation>
    </message>
    <message>
        <source>Yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>No</source>
        <translation>否</translation>
    </message>
</context>
<context>
    <name>ModelProfilesPage</name>
    <message>
        <source>Provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>Filter models</source>
        <translation>筛选模型</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Ask the provider which models it has and what each one takes</source>
        <translation>向服务商查询它提供哪些模型，以及各模型支持什么</translation>
    </message>
    <message>
        <source>Model profiles</source>
        <translation>模型档案</translation>
    </message>
    <message>
        <source>{legend}. The table was taken {taken}; point at a figure to see where it came from.</source>
        <translation>{legend}。内置表的数据采集于 {taken}；将指针悬停在某项数据上可查看其来源。</translation>
    </message>
    <message>
        <source>Asking {provider} for its models…</source>
        <translation>正在向 {provider} 查询模型…</translation>
    </message>
    <message numerus="yes">
        <source>%n models reported by {provider}.</source>
        <translation>
            <numerusform>{provider} 报告了 %n 个模型。</numerusform>
        </translation>
    </message>
    <message>
        <source>No key for {provider}: add one on the Providers page.</source>
        <translation>没有 {provider} 的密钥：请在“服务商”页添加。</translation>
    </message>
    <message>
        <source>{provider} did not answer in time.</source>
        <translation>{provider} 未能及时响应。</translation>
    </message>
    <message>
        <source>{provider} could not list its models ({error}).</source>
        <translation>{provider} 无法列出其模型（{error}）。</translation>
    </message>
</context>
<context>
    <name>ModelsPage</name>
    <message>
        <source>Thinking budget</source>
        <translation>思考预算</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Ask the API which models your key can use</source>
        <translation>向 API 查询你的密钥可用的模型</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> 个 token</translation>
    </message>
    <message>
        <source>Output limit (max tokens)</source>
        <translation>输出上限（最大 token 数）</translation>
    </message>
    <message>
        <source>max_tokens of each request: the longest reply Claude may write</source>
        <translation>每个请求的 max_tokens：Claude 可写出的最长回复</translation>
    </message>
    <message>
        <source>0 means Claude may not use tools at all</source>
        <translation>0 表示 Claude 完全不能使用工具</translation>
    </message>
    <message>
        <source>Automatic (system language)</source>
        <translation>自动（跟随系统语言）</translation>
    </message>
    <message>
        <source>Interface language</source>
        <translation>界面语言</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Appearance</source>
        <translation>外观</translation>
    </message>
    <message>
        <source>Desktop notifications</source>
        <translation>桌面通知</translation>
    </message>
    <message>
        <source>Default model</source>
        <translation>默认模型</translation>
    </message>
    <message>
        <source>Output limit</source>
        <translation>输出上限</translation>
    </message>
    <message>
        <source>Max tokens per reply. A longer answer is cut off; Continue picks it up.</source>
        <translation>每条回复的最大 token 数。更长的回答会被截断；可用“继续”接着生成。</translation>
    </message>
    <message>
        <source>Extended thinking</source>
        <translation>扩展思考</translation>
    </message>
    <message>
        <source>Let Claude think before it answers</source>
        <translation>让 Claude 先思考再回答</translation>
    </message>
    <message>
        <source>At least 1,024. More allows deeper reasoning and costs more.</source>
        <translation>至少 1,024。预算越多，推理越深入，费用也越高。</translation>
    </message>
    <message>
        <source>Max tool rounds</source>
        <translation>最大工具轮数</translation>
    </message>
    <message>
        <source>Tool calls per reply before Claude must answer.</source>
        <translation>每条回复中 Claude 必须作答前可调用工具的轮数。</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Applies at the next start.</source>
        <translation>下次启动时生效。</translation>
    </message>
    <message>
        <source>Automatic follows the system&apos;s light or dark mode.</source>
        <translation>“自动”跟随系统的浅色或深色模式。</translation>
    </message>
    <message>
        <source>Notifications</source>
        <translation>通知</translation>
    </message>
    <message>
        <source>Tell me when a reply in another conversation finishes or needs my approval.</source>
        <translation>其他对话的回复完成或需要我批准时通知我。</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation>思考</translation>
    </message>
    <message>
        <source>Tool use</source>
        <translation>工具使用</translation>
    </message>
    <message>
        <source>Long conversations</source>
        <translation>长对话</translation>
    </message>
    <message>
        <source>Interface</source>
        <translation>界面</translation>
    </message>
    <message>
        <source>Built-in list. Refresh asks the API (needs an Anthropic key).</source>
        <translation>内置列表。点击“刷新”向 API 查询（需要 Anthropic 密钥）。</translation>
    </message>
    <message numerus="yes">
        <source>%n models from the API, fetched {when}.</source>
        <translation>
            <numerusform>API 返回 %n 个模型，获取于 {when}。</numerusform>
        </translation>
    </message>
    <message>
        <source>Add an Anthropic key on the Providers page to fetch the list.</source>
        <translation>请在“服务商”页添加 Anthropic 密钥以获取列表。</translation>
    </message>
    <message>
        <source>Asking the API for models…</source>
        <translation>正在向 API 查询模型…</translation>
    </message>
    <message>
        <source>Showing the cached list.</source>
        <translation>显示缓存的列表。</translation>
    </message>
    <message>
        <source>Showing the built-in list.</source>
        <translation>显示内置列表。</translation>
    </message>
    <message>
        <source>{setting} is set and wins over this choice.</source>
        <translation>已设置 {setting}，它优先于此选项。</translation>
    </message>
    <message>
        <source>{setting} is set and wins over this field.</source>
        <translation>已设置 {setting}，它优先于此栏。</translation>
    </message>
    <message>
        <source>{setting} is not a positive number of tokens and is ignored.</source>
        <translation>{setting} 不是正的 token 数，已忽略。</translation>
    </message>
</context>
<context>
    <name>NewChatMenu</name>
    <message>
        <source>Manage assistants…</source>
        <translation>管理助手…</translation>
    </message>
    <message>
        <source>A reply is still being written: stop the reply (Esc) before starting a new chat.</source>
        <translation>回复仍在生成：请先停止回复（Esc），再开始新对话。</translation>
    </message>
    <message>
        <source>The provider of “{0}” is no longer set up; the default provider answers.</source>
        <translation>“{0}”的服务商已不再配置；将由默认服务商回答。</translation>
    </message>
</context>
<context>
    <name>PassageViewer</name>
    <message>
        <source>Copy passage</source>
        <translation>复制段落</translation>
    </message>
    <message>
        <source>Open in default app</source>
        <translation>用默认应用打开</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Source “{source}”</source>
        <translation>来源“{source}”</translation>
    </message>
    <message>
        <source>This file has changed since the reply, or is no longer indexed: showing the passage as it was found.</source>
        <translation>此文件在回复之后已更改，或已不在索引中：显示的是当时找到的段落。</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
    <message>
        <source>Open the file</source>
        <translation>打开文件</translation>
    </message>
    <message>
        <source>Open {path} in its default app?</source>
        <translation>用默认应用打开 {path}？</translation>
    </message>
    <message>
        <source>This is a program or script: its default app may run it.</source>
        <translation>这是程序或脚本：其默认应用可能会运行它。</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>{path} could not be opened.</source>
        <translation>无法打开 {path}。</translation>
    </message>
</context>
<context>
    <name>PermissionsPage</name>
    <message>
        <source>Rules decide first: the most specific matching rule wins, and at equal specificity deny beats ask beats allow. Without a rule, read-only tools run and the others ask. “Always allow” on an approval card adds a permission here too.</source>
        <translation>规则优先决定：匹配的规则中最具体的一条生效；具体程度相同时，拒绝优先于询问，询问优先于允许。没有规则时，只读工具直接运行，其他工具会询问。在批准卡片上选择“始终允许”也会在这里添加一项权限。</translation>
    </message>
    <message>
        <source>No rules or standing permissions. Read-only tools run without asking; the others ask each time.</source>
        <translation>没有规则或长期权限。只读工具无需询问即可运行；其他工具每次都会询问。</translation>
    </message>
    <message>
        <source>allow</source>
        <translation>允许</translation>
    </message>
    <message>
        <source>ask</source>
        <translation>询问</translation>
    </message>
    <message>
        <source>deny</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Always</source>
        <translation>始终</translation>
    </message>
    <message>
        <source>one conversation</source>
        <translation>某个对话</translation>
    </message>
    <message>
        <source>In: {title}</source>
        <translation>仅在：{title}</translation>
    </message>
    <message>
        <source>Only calls whose main argument matches this pattern</source>
        <translation>仅限主要参数匹配此模式的调用</translation>
    </message>
    <message>
        <source>from {server}</source>
        <translation>来自 {server}</translation>
    </message>
    <message>
        <source>Everywhere</source>
        <translation>所有对话</translation>
    </message>
    <message>
        <source>Only in “{title}”</source>
        <translation>仅在“{title}”中</translation>
    </message>
    <message>
        <source>Given {when}</source>
        <translation>授予于 {when}</translation>
    </message>
    <message>
        <source>Rule added {when}</source>
        <translation>规则添加于 {when}</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>编辑…</translation>
    </message>
    <message>
        <source>Edit rule {number}</source>
        <translation>编辑规则 {number}</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Remove {number}: {action} {tool}</source>
        <translation>移除 {number}：{action} {tool}</translation>
    </message>
    <message>
        <source>Add rule…</source>
        <translation>添加规则…</translation>
    </message>
    <message>
        <source>Remove all</source>
        <translation>全部移除</translation>
    </message>
    <message>
        <source>Remove the rule or standing permission?</source>
        <translation>移除这条规则或长期权限？</translation>
    </message>
    <message numerus="yes">
        <source>Remove all %n rules and standing permissions?</source>
        <translation>
            <numerusform>移除全部 %n 条规则和长期权限？</numerusform>
        </translation>
    </message>
    <message>
        <source>Remove all rules and permissions</source>
        <translation>移除所有规则和权限</translation>
    </message>
    <message>
        <source>Read-only tools will run and every tool that changes things will ask again.</source>
        <translation>只读工具将直接运行，所有会做出更改的工具都将重新询问。</translation>
    </message>
</context>
<context>
    <name>PricesPage</name>
    <message>
        <source>Model id</source>
        <translation>模型 ID</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>Cache read</source>
        <translation>缓存读取</translation>
    </message>
    <message>
        <source>Cache write</source>
        <translation>缓存写入</translation>
    </message>
    <message>
        <source>Add price</source>
        <translation>添加价格</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Remove the selected prices: the built-in price (if any) applies again</source>
        <translation>移除选中的价格：内置价格（如有）将重新生效</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Long prompts</source>
        <translation>长提示词</translation>
    </message>
    <message>
        <source>Set my own price</source>
        <translation>设置自定义价格</translation>
    </message>
    <message>
        <source>Copy the selected built-in price into your prices to change it</source>
        <translation>将选中的内置价格复制到你的价格中以便修改</translation>
    </message>
    <message>
        <source>Your prices</source>
        <translation>你的价格</translation>
    </message>
    <message>
        <source>USD per million tokens. A price here wins over the built-in one, for the model id and its dated versions (claude-sonnet-4-5 also prices claude-sonnet-4-5-20250929). An empty cache price charges those tokens as input.</source>
        <translation>单位：美元/百万 token。此处的价格优先于内置价格，适用于该模型 ID 及其带日期的版本（claude-sonnet-4-5 也为 claude-sonnet-4-5-20250929 定价）。缓存价格留空时，这些 token 按输入计费。</translation>
    </message>
    <message>
        <source>Built-in prices</source>
        <translation>内置价格</translation>
    </message>
    <message>
        <source>As the providers published them in {date}; prices change, so check yours. Models not listed show &quot;price unknown&quot; until you add them above; local models (Ollama) are free.</source>
        <translation>为各服务商于 {date} 公布的价格；价格会变动，请自行核对。未列出的模型显示“价格未知”，直到你在上方添加；本地模型（Ollama）免费。</translation>
    </message>
    <message>
        <source>over {tokens}k: {input} in / {output} out</source>
        <translation>超过 {tokens}k：输入 {input} / 输出 {output}</translation>
    </message>
    <message>
        <source>Row {row} of your prices has no model id.</source>
        <translation>你的价格第 {row} 行没有模型 ID。</translation>
    </message>
    <message>
        <source>{model} has two prices; keep one.</source>
        <translation>{model} 有两个价格；请只保留一个。</translation>
    </message>
    <message>
        <source>The price &quot;{text}&quot; of {model} is not a number of dollars from 0 to 100,000.</source>
        <translation>{model} 的价格“{text}”不是 0 到 100,000 之间的美元数。</translation>
    </message>
    <message>
        <source>Give {model} an input and an output price.</source>
        <translation>请为 {model} 填写输入和输出价格。</translation>
    </message>
</context>
<context>
    <name>ProfileEditor</name>
    <message>
        <source>Native tool calls</source>
        <translation>原生工具调用</translation>
    </message>
    <message>
        <source>Tools described as text</source>
        <translation>以文本描述工具</translation>
    </message>
    <message>
        <source>No thinking shown</source>
        <translation>不显示思考</translation>
    </message>
    <message>
        <source>Anthropic thinking blocks</source>
        <translation>Anthropic 思考块</translation>
    </message>
    <message>
        <source>A separate reasoning field</source>
        <translation>单独的推理字段</translation>
    </message>
    <message>
        <source>&lt;think&gt; tags in the text</source>
        <translation>文本中的 &lt;think&gt; 标签</translation>
    </message>
    <message>
        <source>Gemini thought parts</source>
        <translation>Gemini 思考片段</translation>
    </message>
    <message>
        <source>Yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>No</source>
        <translation>否</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>Reset to automatic</source>
        <translation>恢复为自动</translation>
    </message>
    <message>
        <source>Forget the figures you set for this model</source>
        <translation>清除你为此模型设置的数据</translation>
    </message>
    <message>
        <source>Context window</source>
        <translation>上下文窗口</translation>
    </message>
    <message>
        <source>Output limit</source>
        <translation>输出上限</translation>
    </message>
    <message>
        <source>Tool protocol</source>
        <translation>工具协议</translation>
    </message>
    <message>
        <source>Thinking style</source>
        <translation>思考格式</translation>
    </message>
    <message>
        <source>Images</source>
        <translation>图片</translation>
    </message>
    <message>
        <source>tokens; blank: automatic</source>
        <translation>个 token；留空即为自动</translation>
    </message>
    <message>
        <source>Your figures win over the provider&apos;s and the table&apos;s.</source>
        <translation>你设置的数据优先于服务商报告的和内置表中的数据。</translation>
    </message>
    <message>
        <source>Choose a model above to correct its figures</source>
        <translation>在上方选择一个模型以更正其数据</translation>
    </message>
    <message>
        <source>Automatic: {value}</source>
        <translation>自动：{value}</translation>
    </message>
    <message>
        <source>Automatic ({value})</source>
        <translation>自动（{value}）</translation>
    </message>
    <message>
        <source>A token count is a whole number from 1 to {most}; leave it blank for automatic.</source>
        <translation>token 数须为 1 到 {most} 之间的整数；留空即为自动。</translation>
    </message>
</context>
<context>
    <name>PromptEdit</name>
    <message>
        <source>Message Claude…</source>
        <translation>给 Claude 发消息…</translation>
    </message>
</context>
<context>
    <name>ProviderRow</name>
    <message>
        <source>Anthropic Messages API</source>
        <translation>Anthropic Messages API</translation>
    </message>
    <message>
        <source>Chat Completions</source>
        <translation>Chat Completions</translation>
    </message>
    <message>
        <source>Gemini API</source>
        <translation>Gemini API</translation>
    </message>
    <message>
        <source>Ollama, on this machine or your network</source>
        <translation>Ollama，在本机或局域网中</translation>
    </message>
    <message>
        <source>is needed</source>
        <translation>为必填项</translation>
    </message>
    <message>
        <source>must start with http:// or https://</source>
        <translation>必须以 http:// 或 https:// 开头</translation>
    </message>
    <message>
        <source>has no host name</source>
        <translation>缺少主机名</translation>
    </message>
    <message>
        <source>Offer {provider}</source>
        <translation>提供 {provider}</translation>
    </message>
    <message>
        <source>Default</source>
        <translation>默认</translation>
    </message>
    <message>
        <source>{provider} details</source>
        <translation>{provider} 详情</translation>
    </message>
    <message>
        <source>Optional: only if the server asks for a key</source>
        <translation>可选：仅在服务器要求密钥时填写</translation>
    </message>
    <message>
        <source>{provider} base URL</source>
        <translation>{provider} 基础 URL</translation>
    </message>
    <message>
        <source>Test</source>
        <translation>测试</translation>
    </message>
    <message>
        <source>Asks for the model list with the key and base URL above (nothing is saved but the list)</source>
        <translation>用上方的密钥和基础 URL 查询模型列表（只保存列表）</translation>
    </message>
    <message>
        <source>Remove endpoint</source>
        <translation>移除端点</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>正在检查…</translation>
    </message>
    <message>
        <source>{wire} · id {id}</source>
        <translation>{wire} · ID {id}</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>No key needed</source>
        <translation>无需密钥</translation>
    </message>
    <message>
        <source>Base URL</source>
        <translation>基础 URL</translation>
    </message>
    <message>
        <source>Headers</source>
        <translation>标头</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>The default provider is always offered; choose another default to switch it off</source>
        <translation>默认服务商始终提供；如要关闭，请先选择其他默认服务商</translation>
    </message>
    <message>
        <source>Offer {provider} in the model picker</source>
        <translation>在模型选择器中提供 {provider}</translation>
    </message>
    <message>
        <source>No key — add one</source>
        <translation>无密钥 — 请添加</translation>
    </message>
    <message>
        <source>Key stored in {place} · {hint}</source>
        <translation>密钥保存在{place} · {hint}</translation>
    </message>
    <message>
        <source>Key for this session only · {hint}</source>
        <translation>密钥仅限本次会话 · {hint}</translation>
    </message>
    <message>
        <source>Key from {variable} · {hint}</source>
        <translation>密钥来自 {variable} · {hint}</translation>
    </message>
    <message>
        <source>Asking {provider} for its models…</source>
        <translation>正在向 {provider} 查询模型…</translation>
    </message>
    <message>
        <source>Running, but it refused the request</source>
        <translation>正在运行，但拒绝了请求</translation>
    </message>
    <message>
        <source>Not running at {url}</source>
        <translation>未在 {url} 上运行</translation>
    </message>
    <message numerus="yes">
        <source>Running · %n models</source>
        <translation>
            <numerusform>运行中 · %n 个模型</numerusform>
        </translation>
    </message>
    <message>
        <source>The base URL {problem}.</source>
        <translation>基础 URL {problem}。</translation>
    </message>
    <message numerus="yes">
        <source>%n models listed {when}.</source>
        <translation>
            <numerusform>{when} 列出了 %n 个模型。</numerusform>
        </translation>
    </message>
    <message>
        <source>{provider} key</source>
        <translation>{provider} 密钥</translation>
    </message>
</context>
<context>
    <name>ProvidersPage</name>
    <message>
        <source>No key: paste one above and press Save (or Test it as typed).</source>
        <translation>无密钥：请在上方粘贴并点击“保存”（或直接“测试”输入的密钥）。</translation>
    </message>
    <message>
        <source>{provider} could not list its models ({error}).</source>
        <translation>{provider} 无法列出其模型（{error}）。</translation>
    </message>
    <message>
        <source>Add endpoint…</source>
        <translation>添加端点…</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>Each conversation keeps the provider it started with.</source>
        <translation>每个对话保持其开始时使用的服务商。</translation>
    </message>
    <message>
        <source>{provider} did not answer at {url}.</source>
        <translation>{url} 上的 {provider} 没有响应。</translation>
    </message>
    <message>
        <source>Cloud</source>
        <translation>云端</translation>
    </message>
    <message>
        <source>On this computer</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>Endpoints you added</source>
        <translation>你添加的端点</translation>
    </message>
    <message>
        <source>Any other Chat Completions server: a gateway, a proxy, a server on your network.</source>
        <translation>任何其他 Chat Completions 服务器：网关、代理或局域网中的服务器。</translation>
    </message>
    <message>
        <source>New conversations</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>{provider} is the default provider, so it stays on: choose another default first.</source>
        <translation>{provider} 是默认服务商，因此保持开启：请先选择其他默认服务商。</translation>
    </message>
    <message>
        <source>Correct the base URL first.</source>
        <translation>请先更正基础 URL。</translation>
    </message>
    <message numerus="yes">
        <source>✓ Works — %n models</source>
        <translation>
            <numerusform>✓ 可用 — %n 个模型</numerusform>
        </translation>
    </message>
    <message>
        <source>{provider} base URL {problem}.</source>
        <translation>{provider} 基础 URL {problem}。</translation>
    </message>
</context>
<context>
    <name>RecoveryBar</name>
    <message>
        <source>{model} writes at most {cap:,} tokens per reply.</source>
        <translation>{model} 每条回复最多写 {cap:,} 个 token。</translation>
    </message>
    <message>
        <source>A higher limit can be set in Settings ▸ Models.</source>
        <translation>可在设置 ▸ 模型中设置更高的上限。</translation>
    </message>
    <message>
        <source>This reply was cut off at the output limit of {limit:,} tokens.</source>
        <translation>此回复在 {limit:,} 个 token 的输出上限处被截断。</translation>
    </message>
    <message>
        <source>Continue lets the model carry on where it stopped.</source>
        <translation>“继续”可让模型从停止处接着写。</translation>
    </message>
    <message>
        <source>This conversation no longer fits the model&apos;s context window.</source>
        <translation>此对话已超出模型的上下文窗口。</translation>
    </message>
    <message>
        <source>Compact now summarises the older messages and asks again; a new chat can start from a summary of this one. Every message is kept.</source>
        <translation>“立即压缩”会为较早的消息生成摘要并重新请求；也可以基于此对话的摘要开始新对话。所有消息都会保留。</translation>
    </message>
    <message>
        <source>This request was declined.</source>
        <translation>此请求被拒绝。</translation>
    </message>
    <message>
        <source>Edit and resend puts your message back in the composer to rephrase it.</source>
        <translation>“编辑并重新发送”会把你的消息放回输入框，以便改写。</translation>
    </message>
    <message>
        <source>This reply was interrupted.</source>
        <translation>此回复被中断。</translation>
    </message>
    <message>
        <source>This reply failed.</source>
        <translation>此回复失败。</translation>
    </message>
    <message>
        <source>The text received so far is kept.</source>
        <translation>已保留目前收到的文本。</translation>
    </message>
    <message>
        <source>Nothing of the reply arrived; Retry asks again.</source>
        <translation>回复一点也没有收到；“重试”会重新请求。</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Ask again for this reply; the interrupted text stays stored</source>
        <translation>重新请求此回复；被中断的文本仍会保存</translation>
    </message>
    <message>
        <source>Continue</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Let the model carry on from where the reply stopped</source>
        <translation>让模型从回复停止处接着写</translation>
    </message>
    <message>
        <source>Edit and resend…</source>
        <translation>编辑并重新发送…</translation>
    </message>
    <message>
        <source>Put your message back in the composer to rephrase it</source>
        <translation>把你的消息放回输入框以便改写</translation>
    </message>
    <message>
        <source>Compact now</source>
        <translation>立即压缩</translation>
    </message>
    <message>
        <source>Summarise the older messages (they stay in the conversation), then ask again</source>
        <translation>为较早的消息生成摘要（消息仍保留在对话中），然后重新请求</translation>
    </message>
    <message>
        <source>New chat from a summary</source>
        <translation>从摘要新建对话</translation>
    </message>
    <message>
        <source>Start a new conversation whose first message is a summary of this one</source>
        <translation>开始一个新对话，其第一条消息为此对话的摘要</translation>
    </message>
</context>
<context>
    <name>ReplyActions</name>
    <message>
        <source>Edit and resend…</source>
        <translation>编辑并重新发送…</translation>
    </message>
    <message>
        <source>Regenerate reply</source>
        <translation>重新生成回复</translation>
    </message>
</context>
<context>
    <name>RuleForm</name>
    <message>
        <source>Allow: run without asking</source>
        <translation>允许：无需询问即运行</translation>
    </message>
    <message>
        <source>Ask: ask every time</source>
        <translation>询问：每次都询问</translation>
    </message>
    <message>
        <source>Deny: never run</source>
        <translation>拒绝：从不运行</translation>
    </message>
    <message>
        <source>A command line: “git status*” matches git status with any arguments. Empty: every command.</source>
        <translation>命令行：“git status*” 匹配带任意参数的 git status。留空：所有命令。</translation>
    </message>
    <message>
        <source>A path in the workspace: “src/*” matches everything under src. Empty: every path.</source>
        <translation>工作区中的路径：“src/*” 匹配 src 下的所有内容。留空：所有路径。</translation>
    </message>
    <message>
        <source>A host: “*.python.org” matches its subdomains. Empty: every host.</source>
        <translation>主机：“*.python.org” 匹配其子域名。留空：所有主机。</translation>
    </message>
    <message>
        <source>This tool has no argument rules can match: leave it empty.</source>
        <translation>此工具没有可供规则匹配的参数：请留空。</translation>
    </message>
    <message>
        <source>A command for shell, a path for the file tools, a host for web_fetch. Empty: every call.</source>
        <translation>shell 填命令，文件工具填路径，web_fetch 填主机。留空：所有调用。</translation>
    </message>
    <message>
        <source>Matched against the main argument of each tool the glob names (a command, a path, a host); usually left empty.</source>
        <translation>与通配符所指的每个工具的主要参数匹配（命令、路径或主机）；通常留空。</translation>
    </message>
    <message>
        <source>Edit rule</source>
        <translation>编辑规则</translation>
    </message>
    <message>
        <source>Add rule</source>
        <translation>添加规则</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>Tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>A built-in tool’s name, an MCP tool as mcp:SERVER/TOOL, or a glob (* matches anything).</source>
        <translation>内置工具名、写作 mcp:SERVER/TOOL 的 MCP 工具，或通配符（* 匹配任意内容）。</translation>
    </message>
    <message>
        <source>Pattern</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>SearchResults</name>
    <message>
        <source>Match in the title</source>
        <translation>标题匹配</translation>
    </message>
</context>
<context>
    <name>ServerForm</name>
    <message>
        <source>Values are stored in the system keyring, not in mcp.json.</source>
        <translation>这些值保存在系统密钥环中，而不是 mcp.json 中。</translation>
    </message>
    <message>
        <source>Environment line {number} is not “NAME=value”.</source>
        <translation>第 {number} 行环境变量不是“NAME=value”格式。</translation>
    </message>
    <message>
        <source>Header line {number} is not “Name: value”.</source>
        <translation>第 {number} 行标头不是“名称: 值”格式。</translation>
    </message>
    <message>
        <source>Add MCP server</source>
        <translation>添加 MCP 服务器</translation>
    </message>
    <message>
        <source>Local command</source>
        <translation>本地命令</translation>
    </message>
    <message>
        <source>Remote URL</source>
        <translation>远程 URL</translation>
    </message>
    <message>
        <source>Command and arguments</source>
        <translation>命令和参数</translation>
    </message>
    <message>
        <source>Older SSE transport</source>
        <translation>旧版 SSE 传输</translation>
    </message>
    <message>
        <source>Sign in with OAuth (opens the browser)</source>
        <translation>使用 OAuth 登录（会打开浏览器）</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>The program and its arguments, as in a shell (quote an argument with spaces).</source>
        <translation>程序及其参数，写法同 shell（含空格的参数请加引号）。</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>环境变量</translation>
    </message>
    <message>
        <source>One “NAME=value” a line.</source>
        <translation>每行一个“NAME=value”。</translation>
    </message>
    <message>
        <source>URL</source>
        <translation>URL</translation>
    </message>
    <message>
        <source>Headers</source>
        <translation>标头</translation>
    </message>
    <message>
        <source>One “Name: value” a line.</source>
        <translation>每行一个“名称: 值”。</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Give the server a name: letters, digits, “-”, “_” or “.”, starting with a letter or digit.</source>
        <translation>请为服务器命名：可用字母、数字、“-”、“_”或“.”，并以字母或数字开头。</translation>
    </message>
    <message>
        <source>There is a server called “{name}” already: choose another name, or remove it first.</source>
        <translation>已存在名为“{name}”的服务器：请换个名称，或先将其移除。</translation>
    </message>
    <message>
        <source>The command cannot be read ({problem}): check its quotes.</source>
        <translation>无法解析命令（{problem}）：请检查引号。</translation>
    </message>
    <message>
        <source>Give the command that starts the server, e.g. “npx -y some-mcp-server”.</source>
        <translation>请填写启动服务器的命令，例如“npx -y some-mcp-server”。</translation>
    </message>
    <message>
        <source>The URL {problem}.</source>
        <translation>URL {problem}。</translation>
    </message>
</context>
<context>
    <name>ServerRow</name>
    <message>
        <source>Local command</source>
        <translation>本地命令</translation>
    </message>
    <message>
        <source>Remote (Streamable HTTP)</source>
        <translation>远程（Streamable HTTP）</translation>
    </message>
    <message>
        <source>Remote (SSE)</source>
        <translation>远程（SSE）</translation>
    </message>
    <message>
        <source>Disabled</source>
        <translation>已禁用</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Waiting for the browser… Finish signing in there; this waits up to 5 minutes.</source>
        <translation>正在等待浏览器… 请在浏览器中完成登录；最多等待 5 分钟。</translation>
    </message>
    <message>
        <source>1 tool</source>
        <translation>1 个工具</translation>
    </message>
    <message>
        <source>%n tools</source>
        <translation>%n 个工具</translation>
    </message>
    <message>
        <source>Not running</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>Sign in…</source>
        <translation>登录…</translation>
    </message>
    <message>
        <source>Opens your browser to sign in to this server (OAuth); the sign-in is kept in the system keyring</source>
        <translation>打开浏览器登录此服务器（OAuth）；登录信息保存在系统密钥环中</translation>
    </message>
    <message>
        <source>Sign in to {name}</source>
        <translation>登录 {name}</translation>
    </message>
    <message>
        <source>Test</source>
        <translation>测试</translation>
    </message>
    <message>
        <source>Connects to the server once, apart from the running one, and lists its tools</source>
        <translation>另行连接服务器一次（不影响正在运行的连接），并列出其工具</translation>
    </message>
    <message>
        <source>Restart</source>
        <translation>重启</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Test {name}</source>
        <translation>测试 {name}</translation>
    </message>
    <message>
        <source>Restart {name}</source>
        <translation>重启 {name}</translation>
    </message>
    <message>
        <source>Remove {name}</source>
        <translation>移除 {name}</translation>
    </message>
    <message>
        <source> · restarted {count}×</source>
        <translation> · 已重启 {count} 次</translation>
    </message>
    <message>
        <source>Last error: {error}</source>
        <translation>上次错误：{error}</translation>
    </message>
    <message>
        <source>✓ Signed in — {tools}</source>
        <translation>✓ 已登录 — {tools}</translation>
    </message>
    <message>
        <source>Connecting to {name}…</source>
        <translation>正在连接 {name}…</translation>
    </message>
    <message>
        <source>✓ Works — {tools}</source>
        <translation>✓ 可用 — {tools}</translation>
    </message>
    <message>
        <source>Could not connect: {problem}</source>
        <translation>无法连接：{problem}</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Providers</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>Which services answer: each one&apos;s key, endpoint and model list, and the default. Keys are saved at once, the rest on OK.</source>
        <translation>由哪些服务回答：各自的密钥、端点和模型列表，以及默认服务商。密钥立即保存，其余在点击“确定”时保存。</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Which Claude answers, and how much it may think and use tools.</source>
        <translation>由哪个 Claude 回答，以及它可思考和使用工具的程度。</translation>
    </message>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>What Claude may use while it answers. A tool without its key is never offered.</source>
        <translation>Claude 回答时可使用的工具。缺少密钥的工具不会提供。</translation>
    </message>
    <message>
        <source>Tool keys</source>
        <translation>工具密钥</translation>
    </message>
    <message>
        <source>Keys for the tools that need one (web search). Each provider&apos;s key is on the Providers page. Saving stores a key at once.</source>
        <translation>需要密钥的工具（网页搜索）所用的密钥。各服务商的密钥在“服务商”页。点击保存后立即存储。</translation>
    </message>
    <message>
        <source>MCP servers</source>
        <translation>MCP 服务器</translation>
    </message>
    <message>
        <source>Programs and services that give Claude more tools. Changes here take effect at once.</source>
        <translation>为 Claude 提供更多工具的程序和服务。此处的更改立即生效。</translation>
    </message>
    <message>
        <source>Permissions</source>
        <translation>权限</translation>
    </message>
    <message>
        <source>Rules that allow, ask or deny tool calls, and the permissions you gave on approval cards.</source>
        <translation>允许、询问或拒绝工具调用的规则，以及你在批准卡片上授予的权限。</translation>
    </message>
    <message>
        <source>Knowledge</source>
        <translation>知识</translation>
    </message>
    <message>
        <source>Folders and files you add here are searched by the search_knowledge tool. Everything stays on this computer; with an embedding model, passages are sent to it to be embedded.</source>
        <translation>在此添加的文件夹和文件可由 search_knowledge 工具搜索。所有内容都保留在本机；使用嵌入模型时，段落会发送给该模型进行嵌入。</translation>
    </message>
    <message>
        <source>Assistants</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>Starting points for new chats: a system prompt, a model, thinking and tools. Changes here are saved at once.</source>
        <translation>新对话的起点：系统提示词、模型、思考和工具。此处的更改立即保存。</translation>
    </message>
    <message>
        <source>Prices</source>
        <translation>价格</translation>
    </message>
    <message>
        <source>What each model costs per million tokens, used for the cost of each reply, each conversation and View ▸ Usage. Applied on OK.</source>
        <translation>每个模型每百万 token 的价格，用于计算每条回复、每个对话以及“视图 ▸ 用量”中的费用。点击“确定”后生效。</translation>
    </message>
    <message>
        <source>Model profiles</source>
        <translation>模型档案</translation>
    </message>
    <message>
        <source>What each model takes, how it thinks and calls tools, and where each figure came from. Correct a figure that is wrong for you; applied on OK.</source>
        <translation>每个模型支持什么、如何思考和调用工具，以及每项数据的来源。可更正与你的情况不符的数据；点击“确定”后生效。</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>OK</source>
        <translation>确定</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Not saved: {problem}</source>
        <translation>未保存：{problem}</translation>
    </message>
    <message>
        <source>Saved, but {problem}</source>
        <translation>已保存，但{problem}</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>已保存。</translation>
    </message>
    <message>
        <source>settings</source>
        <translation>设置</translation>
    </message>
</context>
<context>
    <name>SettingsEntry</name>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>The choice was not saved: {problem}</source>
        <translation>未能保存此选择：{problem}</translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <source>In the message box</source>
        <translation>在消息框中</translation>
    </message>
    <message>
        <source>In the search field</source>
        <translation>在搜索框中</translation>
    </message>
    <message>
        <source>In the conversation list</source>
        <translation>在对话列表中</translation>
    </message>
    <message>
        <source>On a tool call waiting for approval</source>
        <translation>在等待批准的工具调用上</translation>
    </message>
    <message>
        <source>Send the message</source>
        <translation>发送消息</translation>
    </message>
    <message>
        <source>New line</source>
        <translation>换行</translation>
    </message>
    <message>
        <source>Stop the reply, or stop editing a message</source>
        <translation>停止回复，或停止编辑消息</translation>
    </message>
    <message>
        <source>Clear the search</source>
        <translation>清除搜索</translation>
    </message>
    <message>
        <source>Move into the results</source>
        <translation>移到搜索结果</translation>
    </message>
    <message>
        <source>Open the first result</source>
        <translation>打开第一个结果</translation>
    </message>
    <message>
        <source>Rename the conversation</source>
        <translation>重命名对话</translation>
    </message>
    <message>
        <source>Delete the conversation</source>
        <translation>删除对话</translation>
    </message>
    <message>
        <source>Move to its buttons from the message box</source>
        <translation>从消息框移到它的按钮</translation>
    </message>
    <message>
        <source>Next or previous button</source>
        <translation>下一个或上一个按钮</translation>
    </message>
    <message>
        <source>Press the button with the focus</source>
        <translation>按下有焦点的按钮</translation>
    </message>
    <message>
        <source>Deny the call</source>
        <translation>拒绝此调用</translation>
    </message>
    <message>
        <source>Window</source>
        <translation>窗口</translation>
    </message>
    <message>
        <source>(no description)</source>
        <translation>（无说明）</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Filter</source>
        <translation>筛选</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>密钥</translation>
    </message>
</context>
<context>
    <name>SideBySideRuns</name>
    <message>
        <source>Choose two to four different models to ask.</source>
        <translation>请选择两到四个不同的模型。</translation>
    </message>
</context>
<context>
    <name>SideBySideUi</name>
    <message>
        <source>Finish or cancel the edit first, then ask several models.</source>
        <translation>请先完成或取消编辑，再询问多个模型。</translation>
    </message>
</context>
<context>
    <name>Sidebar</name>
    <message>
        <source>Delete conversation</source>
        <translation>删除对话</translation>
    </message>
    <message>
        <source>Delete “{title}”?

Its messages are removed from this computer. This cannot be undone.</source>
        <translation>删除“{title}”？

其消息将从这台电脑上移除。此操作无法撤销。</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>New conversation (Ctrl+N)</source>
        <translation>新建对话（Ctrl+N）</translation>
    </message>
    <message>
        <source>New chat from an assistant</source>
        <translation>从助手新建对话</translation>
    </message>
    <message>
        <source>Search chats</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <source>No results for “{query}”</source>
        <translation>没有“{query}”的结果</translation>
    </message>
    <message>
        <source>1 result</source>
        <translation>1 个结果</translation>
    </message>
    <message numerus="yes">
        <source>%n results</source>
        <translation>
            <numerusform>%n 个结果</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>SystemPromptDialog</name>
    <message>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>“{0}” started from the assistant “{1}”.</source>
        <translation>“{0}”由助手“{1}”开始。</translation>
    </message>
    <message>
        <source>“{0}”.</source>
        <translation>“{0}”。</translation>
    </message>
    <message>
        <source>A change applies from the next message.</source>
        <translation>更改从下一条消息起生效。</translation>
    </message>
    <message>
        <source>No system prompt: the model gets only the conversation.</source>
        <translation>无系统提示词：模型只收到对话内容。</translation>
    </message>
    <message>
        <source>Empty: the app&apos;s default system prompt is used.</source>
        <translation>留空：使用应用的默认系统提示词。</translation>
    </message>
    <message>
        <source>Use the assistant&apos;s</source>
        <translation>使用助手的提示词</translation>
    </message>
    <message>
        <source>Put back the system prompt of the assistant this conversation started from</source>
        <translation>恢复此对话所用助手的系统提示词</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>The system prompt is longer than {0:,} characters; shorten it.</source>
        <translation>系统提示词超过 {0:,} 个字符；请缩短。</translation>
    </message>
    <message>
        <source>Not saved: {0}</source>
        <translation>未保存：{0}</translation>
    </message>
</context>
<context>
    <name>Thinking</name>
    <message>
        <source>Thinking… {time}</source>
        <translation>思考中… {time}</translation>
    </message>
    <message>
        <source>Thought for {time}</source>
        <translation>已思考 {time}</translation>
    </message>
    <message>
        <source>Thinking redacted by the provider (kept encrypted for replay)</source>
        <translation>思考内容已被服务商隐去（加密保存以供重放）</translation>
    </message>
</context>
<context>
    <name>ToolCard</name>
    <message>
        <source>image could not be shown</source>
        <translation>无法显示图片</translation>
    </message>
    <message>
        <source>… {lines:,} more lines, {chars:,} characters not shown (right-click the card to copy all)</source>
        <translation>… 还有 {lines:,} 行、{chars:,} 个字符未显示（右键点击卡片可复制全部）</translation>
    </message>
    <message>
        <source>… earlier output not shown</source>
        <translation>… 更早的输出未显示</translation>
    </message>
    <message>
        <source>Arguments (changed by a hook)</source>
        <translation>参数（已被钩子修改）</translation>
    </message>
    <message>
        <source>Arguments</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Show less</source>
        <translation>收起</translation>
    </message>
    <message>
        <source>Show all</source>
        <translation>显示全部</translation>
    </message>
    <message>
        <source>Preview</source>
        <translation>预览</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Structured result</source>
        <translation>结构化结果</translation>
    </message>
    <message>
        <source>Links</source>
        <translation>链接</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>Sending…</source>
        <translation>正在发送…</translation>
    </message>
    <message>
        <source>from {server}</source>
        <translation>来自 {server}</translation>
    </message>
</context>
<context>
    <name>ToolList</name>
    <message>
        <source>Runs without asking</source>
        <translation>无需询问即可运行</translation>
    </message>
    <message>
        <source>Asks before it runs</source>
        <translation>运行前会询问</translation>
    </message>
</context>
<context>
    <name>ToolRow</name>
    <message>
        <source>Called {name} by the model</source>
        <translation>模型调用名为 {name}</translation>
    </message>
    <message>
        <source>{risk}: runs without asking</source>
        <translation>{risk}：无需询问即可运行</translation>
    </message>
    <message>
        <source>{risk}: runs only after you allow it (Settings ▸ Permissions lists what you allowed)</source>
        <translation>{risk}：经你允许后才会运行（设置 ▸ 权限中列出了你允许的内容）</translation>
    </message>
    <message>
        <source>{risk}: asks before every call; it cannot be allowed for good</source>
        <translation>{risk}：每次调用前都会询问；无法永久允许</translation>
    </message>
    <message>
        <source>from {server}</source>
        <translation>来自 {server}</translation>
    </message>
    <message>
        <source>Use {name}</source>
        <translation>使用 {name}</translation>
    </message>
    <message>
        <source>Add key…</source>
        <translation>添加密钥…</translation>
    </message>
    <message>
        <source>Needs a workspace folder</source>
        <translation>需要工作区文件夹</translation>
    </message>
    <message>
        <source>Needs a knowledge source</source>
        <translation>需要知识来源</translation>
    </message>
    <message>
        <source>Offered to Claude</source>
        <translation>已提供给 Claude</translation>
    </message>
    <message>
        <source>Switched off</source>
        <translation>已关闭</translation>
    </message>
    <message>
        <source>Not offered to Claude until you add a {key}.</source>
        <translation>添加{key}后才会提供给 Claude。</translation>
    </message>
    <message>
        <source>Add {name} key…</source>
        <translation>添加 {name} 密钥…</translation>
    </message>
    <message>
        <source>Not offered to Claude until you choose a workspace folder below.</source>
        <translation>在下方选择工作区文件夹后才会提供给 Claude。</translation>
    </message>
    <message>
        <source>Not offered to Claude until you add a folder or file in Settings ▸ Knowledge.</source>
        <translation>在设置 ▸ 知识中添加文件夹或文件后才会提供给 Claude。</translation>
    </message>
</context>
<context>
    <name>ToolsPage</name>
    <message>
        <source>None — the file tools are off</source>
        <translation>无 — 文件工具已关闭</translation>
    </message>
    <message>
        <source>Needs a {names} key</source>
        <translation>需要 {names} 密钥</translation>
    </message>
    <message>
        <source> and a </source>
        <translation>和</translation>
    </message>
    <message>
        <source>Read-only</source>
        <translation>只读</translation>
    </message>
    <message>
        <source>Asks first</source>
        <translation>先询问</translation>
    </message>
    <message>
        <source>Asks every time</source>
        <translation>每次询问</translation>
    </message>
    <message>
        <source>No tools are registered.</source>
        <translation>没有已注册的工具。</translation>
    </message>
</context>
<context>
    <name>TranscriptNotice</name>
    <message>
        <source>Stopped.</source>
        <translation>已停止。</translation>
    </message>
    <message>
        <source>Cut off at the output limit: this reply is incomplete.</source>
        <translation>已在输出上限处截断：此回复不完整。</translation>
    </message>
    <message>
        <source>The model declined to answer this request.</source>
        <translation>模型拒绝回答此请求。</translation>
    </message>
    <message>
        <source>The reply was interrupted.</source>
        <translation>回复被中断。</translation>
    </message>
    <message>
        <source>The reply failed.</source>
        <translation>回复失败。</translation>
    </message>
    <message>
        <source>Switched to {model}</source>
        <translation>已切换到 {model}</translation>
    </message>
    <message>
        <source>[{type} block, not shown]</source>
        <translation>[{type} 块，未显示]</translation>
    </message>
</context>
<context>
    <name>TranscriptView</name>
    <message>
        <source>Deny {tool}</source>
        <translation>拒绝 {tool}</translation>
    </message>
    <message numerus="yes">
        <source>Deny %n tool calls</source>
        <translation>
            <numerusform>拒绝 %n 个工具调用</numerusform>
        </translation>
    </message>
    <message>
        <source>Show this passage</source>
        <translation>显示此段落</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Open the original conversation</source>
        <translation>打开原对话</translation>
    </message>
    <message>
        <source>Copy message as Markdown</source>
        <translation>以 Markdown 格式复制消息</translation>
    </message>
    <message>
        <source>Copy as plain text</source>
        <translation>以纯文本复制</translation>
    </message>
    <message>
        <source>Copy tool arguments</source>
        <translation>复制工具参数</translation>
    </message>
    <message>
        <source>Copy tool result</source>
        <translation>复制工具结果</translation>
    </message>
    <message>
        <source>Hide the compacted messages</source>
        <translation>隐藏已压缩的消息</translation>
    </message>
    <message>
        <source>Show the compacted messages</source>
        <translation>显示已压缩的消息</translation>
    </message>
    <message>
        <source>Copy summary</source>
        <translation>复制摘要</translation>
    </message>
    <message>
        <source>Undo compaction</source>
        <translation>撤销压缩</translation>
    </message>
    <message>
        <source>Send these messages whole again from the next request on</source>
        <translation>从下一个请求起重新完整发送这些消息</translation>
    </message>
</context>
<context>
    <name>UsageChart</name>
    <message>
        <source>MMM d</source>
        <comment>a day on the chart (QDate format)</comment>
        <translation>M月d日</translation>
    </message>
</context>
<context>
    <name>UsageDisplay</name>
    <message>
        <source>No tokens used yet</source>
        <translation>尚未使用 token</translation>
    </message>
    <message>
        <source>{input} in · {output} out · {cost}</source>
        <translation>输入 {input} · 输出 {output} · {cost}</translation>
    </message>
    <message>
        <source>Cost: {cost}</source>
        <translation>费用：{cost}</translation>
    </message>
    <message>
        <source>{count} of {replies} replies are from models without a known price; add their prices in Settings ▸ Prices.</source>
        <translation>{replies} 条回复中有 {count} 条来自价格未知的模型；请在设置 ▸ 价格中添加它们的价格。</translation>
    </message>
    <message>
        <source>Input: {count} tokens</source>
        <translation>输入：{count} 个 token</translation>
    </message>
    <message>
        <source>  read from cache: {count}</source>
        <translation>  从缓存读取：{count}</translation>
    </message>
    <message>
        <source>  written to cache: {count}</source>
        <translation>  写入缓存：{count}</translation>
    </message>
    <message>
        <source>Output: {count} tokens</source>
        <translation>输出：{count} 个 token</translation>
    </message>
    <message>
        <source>  thinking: {count}</source>
        <translation>  思考：{count}</translation>
    </message>
    <message>
        <source>{count} in</source>
        <translation>输入 {count}</translation>
    </message>
    <message>
        <source> ({count} cached)</source>
        <translation>（缓存 {count}）</translation>
    </message>
    <message>
        <source>{count} out</source>
        <translation>输出 {count}</translation>
    </message>
    <message>
        <source> ({count} thinking)</source>
        <translation>（思考 {count}）</translation>
    </message>
    <message>
        <source>No token usage was reported for this reply.</source>
        <translation>此回复未报告 token 用量。</translation>
    </message>
    <message>
        <source>this model</source>
        <translation>此模型</translation>
    </message>
    <message>
        <source>No price is known for {model}; add one in Settings ▸ Prices.</source>
        <translation>{model} 的价格未知；请在设置 ▸ 价格中添加。</translation>
    </message>
    <message>
        <source>Priced with your price for {model}.</source>
        <translation>按你为 {model} 设置的价格计费。</translation>
    </message>
    <message>
        <source>Priced as {model} (prices of {date}).</source>
        <translation>按 {model} 计价（{date} 的价格）。</translation>
    </message>
</context>
<context>
    <name>UsageTile</name>
    <message>
        <source>{input} in · {output} out</source>
        <translation>输入 {input} · 输出 {output}</translation>
    </message>
    <message>
        <source>{count} of {replies} replies have no known price: the cost shown leaves them out.</source>
        <translation>{replies} 条回复中有 {count} 条价格未知：显示的费用未包含它们。</translation>
    </message>
</context>
<context>
    <name>UsageView</name>
    <message>
        <source>Usage</source>
        <translation>用量</translation>
    </message>
    <message>
        <source>Cost</source>
        <translation>费用</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Token</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Cache read</source>
        <translation>缓存读取</translation>
    </message>
    <message>
        <source>Cache write</source>
        <translation>缓存写入</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation>思考</translation>
    </message>
    <message>
        <source>Grey bars: days with replies from models without a known price (their cost is left out).</source>
        <translation>灰色柱：当天有来自价格未知模型的回复（其费用未计入）。</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Today</source>
        <translation>今天</translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation>最近 7 天</translation>
    </message>
    <message>
        <source>Last 30 days</source>
        <translation>最近 30 天</translation>
    </message>
    <message>
        <source>All time</source>
        <translation>全部时间</translation>
    </message>
    <message>
        <source>Per day, last {days} days</source>
        <translation>按天，最近 {days} 天</translation>
    </message>
    <message>
        <source>Per model</source>
        <translation>按模型</translation>
    </message>
    <message>
        <source>Costs use the built-in prices of {date} and yours from Settings ▸ Prices; replies replaced by an edit or a regeneration count too. Local models are free.</source>
        <translation>费用按 {date} 的内置价格以及你在设置 ▸ 价格中的价格计算；因编辑或重新生成而被替换的回复也计入。本地模型免费。</translation>
    </message>
    <message>
        <source>No conversations are stored, so there is no usage to show.</source>
        <translation>没有保存的对话，因此没有可显示的用量。</translation>
    </message>
    <message>
        <source>{count} tokens</source>
        <translation>{count} 个 token</translation>
    </message>
    <message>
        <source>(unknown model)</source>
        <translation>（未知模型）</translation>
    </message>
    <message>
        <source>No price is known for this model. Add one in Settings ▸ Prices.</source>
        <translation>此模型的价格未知。请在设置 ▸ 价格中添加。</translation>
    </message>
    <message>
        <source>Priced with your price from Settings ▸ Prices.</source>
        <translation>按你在设置 ▸ 价格中设置的价格计费。</translation>
    </message>
    <message>
        <source>price unknown</source>
        <translation>价格未知</translation>
    </message>
</context>
<context>
    <name>UsageWords</name>
    <message>
        <source>free (local)</source>
        <translation>免费（本地）</translation>
    </message>
    <message>
        <source>cost unknown</source>
        <translation>费用未知</translation>
    </message>
    <message>
        <source>{cost} + unknown</source>
        <translation>{cost} + 未知</translation>
    </message>
    <message>
        <source>price unknown</source>
        <translation>价格未知</translation>
    </message>
</context>
<context>
    <name>VersionSwitcher</name>
    <message>
        <source>Versions ({count})</source>
        <translation>版本（{count}）</translation>
    </message>
    <message>
        <source>Version {number} of {count} (shown)</source>
        <translation>第 {number} 个版本，共 {count} 个（当前显示）</translation>
    </message>
    <message>
        <source>Switch to version {number} of {count}</source>
        <translation>切换到第 {number} 个版本（共 {count} 个）</translation>
    </message>
</context>
<context>
    <name>WelcomeDialog</name>
    <message>
        <source>Welcome</source>
        <translation>欢迎</translation>
    </message>
    <message>
        <source>Check again</source>
        <translation>重新检查</translation>
    </message>
    <message>
        <source>Ask the model servers on this computer again whether they run</source>
        <translation>再次检查本机上的模型服务器是否在运行</translation>
    </message>
    <message>
        <source>Later</source>
        <translation>稍后</translation>
    </message>
    <message>
        <source>Close; Settings ▸ Providers (Ctrl+,) has all of this</source>
        <translation>关闭；这些内容都可在设置 ▸ 服务商（Ctrl+,）中找到</translation>
    </message>
    <message>
        <source>Welcome to Desktop Copilot</source>
        <translation>欢迎使用 Desktop Copilot</translation>
    </message>
    <message>
        <source>Choose who answers. A service in the cloud needs its API key, which is kept in your system keyring, never in a file. A model server on this computer needs none.</source>
        <translation>选择由谁回答。云端服务需要其 API 密钥，密钥保存在系统密钥环中，绝不写入文件。本机上的模型服务器则无需密钥。</translation>
    </message>
    <message>
        <source>On this computer</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>In the cloud: needs an API key</source>
        <translation>云端：需要 API 密钥</translation>
    </message>
    <message>
        <source>Open page</source>
        <translation>打开页面</translation>
    </message>
    <message>
        <source>Open {url} in your browser</source>
        <translation>在浏览器中打开 {url}</translation>
    </message>
    <message>
        <source>Open the page where you get a {provider} key</source>
        <translation>打开获取 {provider} 密钥的页面</translation>
    </message>
    <message>
        <source>Add key…</source>
        <translation>添加密钥…</translation>
    </message>
    <message>
        <source>Add a {provider} key</source>
        <translation>添加 {provider} 密钥</translation>
    </message>
    <message>
        <source>Settings ▸ Providers, with the cursor in the {provider} key field</source>
        <translation>打开设置 ▸ 服务商，并将光标置于 {provider} 密钥栏</translation>
    </message>
    <message>
        <source>Looking for model servers on this computer…</source>
        <translation>正在查找本机上的模型服务器…</translation>
    </message>
    <message numerus="yes">
        <source>Ready · %n models</source>
        <translation>
            <numerusform>就绪 · %n 个模型</numerusform>
        </translation>
    </message>
    <message>
        <source>Use {provider}</source>
        <translation>使用 {provider}</translation>
    </message>
    <message>
        <source>Not running: {names}.</source>
        <translation>未运行：{names}。</translation>
    </message>
    <message>
        <source>No model server is running here. Start one ({names}), then press Check again.</source>
        <translation>本机没有正在运行的模型服务器。请启动其中一个（{names}），然后点击“重新检查”。</translation>
    </message>
</context>
<context>
    <name>WindowMenus</name>
    <message>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <source>Cu&amp;t</source>
        <translation>剪切(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Paste</source>
        <translation>粘贴(&amp;P)</translation>
    </message>
    <message>
        <source>Select &amp;All</source>
        <translation>全选(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Find in chats</source>
        <translation>在对话中查找(&amp;F)</translation>
    </message>
    <message>
        <source>Search the titles and messages of every conversation</source>
        <translation>搜索所有对话的标题和消息</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Show &amp;conversation list</source>
        <translation>显示对话列表(&amp;C)</translation>
    </message>
    <message>
        <source>Zoom &amp;in</source>
        <translation>放大(&amp;I)</translation>
    </message>
    <message>
        <source>Zoom &amp;out</source>
        <translation>缩小(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Actual size</source>
        <translation>实际大小(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Usage…</source>
        <translation>用量(&amp;U)…</translation>
    </message>
    <message>
        <source>Tokens and cost per day and per model</source>
        <translation>按天和按模型统计的 token 与费用</translation>
    </message>
    <message>
        <source>The Usage view is not part of this version.</source>
        <translation>此版本不包含用量视图。</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>Open log folder</source>
        <translation>打开日志文件夹</translation>
    </message>
    <message>
        <source>Show the folder with the app&apos;s log files, to attach to a bug report</source>
        <translation>显示应用日志文件所在的文件夹，以便附到错误报告中</translation>
    </message>
    <message>
        <source>&amp;About Desktop Copilot</source>
        <translation>关于 Desktop Copilot(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
</context>
<context>
    <name>WorkspaceGroup</name>
    <message>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清除</translation>
    </message>
    <message>
        <source> characters</source>
        <translation> 个字符</translation>
    </message>
    <message>
        <source>Tool result limit</source>
        <translation>工具结果上限</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Characters of a result sent to the model; the card keeps the whole.</source>
        <translation>发送给模型的结果字符数；卡片中保留完整结果。</translation>
    </message>
    <message>
        <source>Workspace folder</source>
        <translation>工作区文件夹</translation>
    </message>
    <message>
        <source>Tool results</source>
        <translation>工具结果</translation>
    </message>
    <message>
        <source>Choose the workspace folder</source>
        <translation>选择工作区文件夹</translation>
    </message>
    <message>
        <source>This folder does not exist (any more): the file tools stay off until you choose another.</source>
        <translation>此文件夹（已）不存在：在选择其他文件夹前，文件工具保持关闭。</translation>
    </message>
    <message>
        <source>The file tools may list, read and search in it without asking; writing asks first. Nothing outside it.</source>
        <translation>文件工具可在其中列出、读取和搜索而无需询问；写入会先询问。不会触及其外的任何内容。</translation>
    </message>
    <message>
        <source>Choose a folder to let Claude read and (with your approval) edit the files in it.</source>
        <translation>选择一个文件夹，让 Claude 读取并（经你批准后）编辑其中的文件。</translation>
    </message>
</context>
</TS>
