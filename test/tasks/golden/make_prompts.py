# Renders prompts the way the studies' own code does, on small inline examples, to check
# src/tasks against: study B's evaluate_cross.py / train_ptune.py build
#   context = "".join(template.format_map(d) + d["output"] + "\n\n" for d in demos[:k])
#   prompt  = context + template.format_map(query)   (k > 0)
#   prompt  = "<s> " + template.format_map(query)    (k = 0)
# and study A's pattern is "{premise}Question: {hypothesis} Yes or No?" followed by " Yes" / " No".
# Run: /usr/bin/python3 test/tasks/golden/make_prompts.py  (writes prompts.json beside this file)
import json, os

prompt_map = [
    {
        "summary": "### Input:\n{input}\n### Summary:",
        "question": "### Input:\n{input}\n### Answer:\n{answer}\n### Question:",
        "sentiment": "### Input:\n{input}\n### Sentiment:",
        "inference": "### Input_1:\n{input_1}\n### Input_2:\n{input_2}\n### Inference:",
        "detection": "### Input_1:\n{input_1}\n### Input_2:\n{input_2}\n### Paraphrase Classification:",
    },
    {
        "summary": "Please read the following text:{input}\nProvide a summary:",
        "question": "Given the context:{input}\nAnd the answer:{answer}\nGenerate a suitable question:",
        "sentiment": "Analyze the sentiment of the following text:{input}\nSentiment:",
        "inference": "Consider the following texts: Text 1:{input_1}\nText 2:{input_2}\nThe relation is ",
        "detection": "Let's compare the two sentences: Sentence_1:{input_1}\nSentence_2:{input_2}\nAre they paraphrasing?:",
    },
]

rows = {
    "sentiment": [
        {"idx": 0, "input": "Great case, {sturdy} and  cheap. ", "output": "positive"},
        {"idx": 1, "input": "Broke after a week.\nNot again.", "output": "negative"},
        {"idx": 2, "input": "  Fine, I guess", "output": "positive"},
    ],
    "inference": [
        {"input_1": "A man plays a guitar.", "input_2": "A person makes music.", "output": "entailment"},
        {"input_1": "The cat sleeps.", "input_2": "The cat runs.", "output": "contradiction"},
        {"input_1": "Kids in a park.", "input_2": "Kids at school.", "output": "neutral"},
        {"input_1": "It rains.", "input_2": "The ground is wet.", "output": "entailment"},
    ],
    "detection": [
        {"input_1": "He left early.", "input_2": "He departed early.", "output": "yes"},
        {"input_1": "She won.", "input_2": "She lost.", "output": "no"},
        {"input_1": "A and B.", "input_2": "B and A.", "output": "yes"},
    ],
    "summary": [
        {"idx": 5, "input": "Line one.\nLine two.", "output": "Two lines."},
        {"idx": 6, "input": "Only one line.", "output": "One line."},
    ],
    "question": [
        {"idx": 9, "input": "Kai gave Sam a book.", "answer": "read it", "output": "What will Sam want to do next?"},
        {"idx": 10, "input": "Lee cried.", "answer": "comfort Lee", "output": "What will others do?"},
    ],
}

out = {"studyB": [], "studyA": []}
for map_idx, pm in enumerate(prompt_map):
    for task, data in rows.items():
        query, demos = data[-1], data[:-1]
        for k in range(len(demos) + 1):
            context = ""
            for tmp in demos[:k]:
                context += pm[task].format_map(tmp) + tmp["output"] + "\n\n"
            prompt = "<s> " + pm[task].format_map(query) if k == 0 else context + pm[task].format_map(query)
            out["studyB"].append({"prompt": map_idx + 1, "task": task, "k": k, "demos": demos[:k], "query": query, "text": prompt,
                                  "training_source": context + pm[task].format_map(query), "training_target": query["output"]})

study_a = "{premise}Question: {hypothesis} Yes or No?"
for premise, hypothesis, label in [("A dog runs.", "An animal runs.", "Yes"), ("Two men talk", "Nobody talks.", "No"), ("  x ", " y", "No")]:
    prompt = study_a.format_map({"premise": premise, "hypothesis": hypothesis})
    out["studyA"].append({"premise": premise, "hypothesis": hypothesis, "label": label, "prompt": prompt,
                          "with_gold": prompt + {"Yes": " Yes", "No": " No"}[label]})

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prompts.json")
with open(path, "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False, indent=1)
